import type { ActionKind, ActionPayloads, CrmName, DistributiveOmit, NewAction, SyncTrigger } from '../domain/actions.js';
import type { ActionQueueName } from '../queues/queues.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';

export type { DistributiveOmit, NewAction };

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

/** A run that must run again, on purpose, not for a failed call (its reason says why): the entry is retried as after a transient failure. */
export class RunAgainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunAgainError';
  }
}
