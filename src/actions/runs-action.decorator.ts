import { SetMetadata } from '@nestjs/common';
import type { ActionKind, CrmName } from '../domain/actions.js';
import type { ActionQueueName } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from './action.types.js';

export interface RunsActionOptions {
  kind: ActionKind;
  /** The CRM whose actions of this kind the method runs; unset: whatever their CRM. */
  crm?: CrmName;
  /** The queue its jobs go on: one per system the work talks to, so a slow CRM never holds up the others. */
  queue: ActionQueueName;
}

const RUNS_ACTION = 'crm-sync:runs-action';

/** The options a method was marked with, if it was. */
export function runsActionOf(method: unknown): RunsActionOptions | undefined {
  return typeof method === 'function' ? (Reflect.getMetadata(RUNS_ACTION, method) as RunsActionOptions | undefined) : undefined;
}

/**
 * Marks a provider's method as the handler of one kind of sync action (of one CRM, or of any). The method takes the
 * entry with that kind's payload and says what the run achieved. ActionRegistryService finds it among the providers at
 * start; the daemon refuses to start when a kind that must run has no handler, or has two.
 */
export function RunsAction<K extends ActionKind>(kind: K, options: Omit<RunsActionOptions, 'kind'>) {
  return (target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<(entry: ActionEntry<K>) => Promise<ActionOutcome>>): void => {
    SetMetadata(RUNS_ACTION, { kind, ...options })(target, key, descriptor);
  };
}
