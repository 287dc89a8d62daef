import type { ActionKind, ActionPayloads, CrmName, SyncTrigger } from '../domain/actions.js';
import type { ActionQueueName } from '../queues/queues.js';
import type { SyncLogEntry } from './sync-log.entity.js';

/** `Omit` over each member of a union (the built-in one merges the members). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface NewActionFields {
  trigger: SyncTrigger;
  crm: CrmName | null;
  projectId: string | null;
  target: string | null;
  /** `queued` (default) runs it; `skipped` or `failed` only records a decision that needs no run. */
  status?: 'queued' | 'skipped' | 'failed' | 'succeeded';
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
  /** The admin (token name) whose request created the action; unset for the daemon's own work. */
  actor?: string;
}

/** An action to record and, when `queued`, to run: its kind and that kind's payload. */
export type NewAction = { [K in ActionKind]: NewActionFields & { kind: K; payload?: ActionPayloads[K] } }[ActionKind];

/** A sync log entry as the handler of its kind sees it: the payload typed. */
export type ActionEntry<K extends ActionKind> = Omit<SyncLogEntry, 'kind' | 'payload'> & { kind: K; payload: ActionPayloads[K] };

/** What one run of an action achieved. `next` actions start once this one succeeded (a chain such as sale, then Sold). */
export interface ActionOutcome {
  /** `waiting`: done on crm-sync's side, held by the other system (e.g. Zoho's approval process). */
  status: 'succeeded' | 'skipped' | 'waiting';
  detail?: string;
  next?: Array<DistributiveOmit<NewAction, 'trigger' | 'parentId'> & { trigger?: SyncTrigger }>;
}

/** A handler as the registry holds it (found through `@RunsAction`). */
export interface RegisteredHandler {
  readonly kind: ActionKind;
  /** The CRM whose actions of this kind it runs; unset: the kind's actions whatever their CRM (e.g. `associate`). */
  readonly crm?: CrmName;
  readonly queue: ActionQueueName;
  /** `Class.method`, for messages. */
  readonly name: string;
  run(entry: SyncLogEntry): Promise<ActionOutcome>;
}

/** A failure that trying again cannot fix (an unknown appointment, ids that disagree): the entry fails at once. */
export class PermanentActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentActionError';
  }
}
