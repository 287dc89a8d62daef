import type { CrmName, SyncTrigger } from '../domain/actions.js';

export const SYNC_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped', 'waiting'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/**
 * One action of the daemon and what became of it. An entry is both the admin's record of what happened and the
 * durable description of the work: its job on the queue carries only the entry id, so a lost queue loses nothing.
 */
export interface SyncLogEntry {
  /** bigint: TypeORM hands it over as a string, which is what the admin API shows. */
  id: string;
  kind: string;
  trigger: SyncTrigger;
  crm: CrmName | null;
  projectId: string | null;

  /** The appointment id, or `Module/record id` of the record CRM. */
  target: string | null;
  status: SyncStatus;
  attempts: number;

  /** `attempts` when an admin last retried the entry: the runs since then count against the budget of tries. */
  retryBase: number;

  /** The last failure's reason. */
  error: string | null;

  /** What the action did or why it was skipped, in a sentence for the admin. */
  detail: string | null;

  /** The action's input; enough to run it again. */
  payload: Record<string, unknown>;

  /** Makes creating the same action twice (a re-run of the code that creates it) a no-op. */
  dedupeKey: string | null;

  /** Joins actions of the same kind and target while one is still queued (a burst of drawing events). */
  coalesceKey: string | null;
  inboxId: string | null;
  parentId: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;

  /** When the relay handed the entry's job to its queue; null while it waits for the relay. */
  enqueuedAt: Date | null;

  /** The entry runs no earlier than this (a burst of drawing events gathers behind it). */
  notBefore: Date | null;

  /** The admin (token name) whose request created the entry; null for the daemon's own work. */
  actor: string | null;
}
