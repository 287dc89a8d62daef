import type { ActionQueueName } from '../queues/queues.js';
import type { CrmName, SyncLogEntry, SyncTrigger } from './sync-log.entity.js';

/** An action to record and, when `queued`, to run. */
export interface NewAction {
  kind: string;
  trigger: SyncTrigger;
  crm: CrmName | null;
  projectId: string | null;
  target: string | null;
  payload?: Record<string, unknown>;
  /** `queued` (default) runs it; `skipped` or `failed` only records a decision that needs no run. */
  status?: 'queued' | 'skipped' | 'failed';
  detail?: string;
  error?: string;
  /** Creating an action with a key that exists already returns the existing one. */
  dedupeKey?: string;
  /** While an action with this key is still queued, a new one joins it instead of being created. */
  coalesceKey?: string;
  /** Run no earlier than this many ms from now (lets a burst gather behind a coalesce key). */
  delayMs?: number;
  inboxId?: string;
  parentId?: string;
}

/** What one run of an action achieved. `next` actions start once this one succeeded (a chain such as sale, then Sold). */
export interface ActionOutcome {
  status: 'succeeded' | 'skipped';
  detail?: string;
  next?: Array<Omit<NewAction, 'trigger' | 'parentId'> & { trigger?: SyncTrigger }>;
}

export interface ActionHandler {
  readonly kind: string;
  /** The CRM whose actions of this kind it runs; unset: the kind's actions whatever their CRM (e.g. `associate`). */
  readonly crm?: CrmName;
  readonly queue: ActionQueueName;
  run(entry: SyncLogEntry): Promise<ActionOutcome>;
}

/** A failure that trying again cannot fix (an unknown appointment, ids that disagree): the entry fails at once. */
export class PermanentActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentActionError';
  }
}
