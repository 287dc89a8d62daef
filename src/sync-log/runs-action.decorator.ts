import { DiscoveryService } from '@nestjs/core';
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

/** The metadata `ActionRegistry` discovers on provider methods. */
export const RunsActionMetadata = DiscoveryService.createDecorator<RunsActionOptions>();

/**
 * Marks a provider's method as the handler of one kind of sync action (of one CRM, or of any). The method takes the
 * entry with that kind's payload and says what the run achieved. The daemon refuses to start when a kind that an
 * enabled module must run has no handler, or has two.
 */
export function RunsAction<K extends ActionKind>(kind: K, options: Omit<RunsActionOptions, 'kind'>) {
  return (target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<(entry: ActionEntry<K>) => Promise<ActionOutcome>>): void => {
    RunsActionMetadata({ kind, ...options })(target, key, descriptor);
  };
}
