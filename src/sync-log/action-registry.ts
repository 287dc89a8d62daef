import { Injectable } from '@nestjs/common';
import type { ActionQueueName } from '../queues/queues.js';
import type { ActionHandler } from './action.types.js';
import type { CrmName } from './sync-log.entity.js';

const ANY_CRM = '*';

/** The reason of an action that no handler runs (its CRM was unconfigured since it was recorded). */
export const noHandlerFor = (kind: string): string => `no handler for action kind ${kind} (is its CRM configured?)`;
const keyOf = (kind: string, crm: string | null | undefined) => `${crm ?? ANY_CRM}:${kind}`;

/**
 * Which handler runs which action, filled by the feature modules at start. Several CRMs share kind names (both add
 * notes), so an action is matched on its kind and CRM, then on its kind alone for handlers that serve every CRM.
 */
@Injectable()
export class ActionRegistry {
  private readonly handlers = new Map<string, ActionHandler>();

  register(...handlers: ActionHandler[]): void {
    for (const handler of handlers) {
      const key = keyOf(handler.kind, handler.crm);
      if (this.handlers.has(key)) throw new Error(`two handlers for action kind ${handler.kind} (${handler.crm ?? 'any CRM'})`);
      this.handlers.set(key, handler);
    }
  }

  handlerFor(kind: string, crm: CrmName | null): ActionHandler | undefined {
    return (crm ? this.handlers.get(keyOf(kind, crm)) : undefined) ?? this.handlers.get(keyOf(kind, ANY_CRM));
  }

  queueFor(kind: string, crm: CrmName | null): ActionQueueName | undefined {
    return this.handlerFor(kind, crm)?.queue;
  }
}
