import { Injectable } from '@nestjs/common';
import type { ActionQueueName } from '../queues/queues.js';
import type { ActionHandler } from './action.types.js';

/** Which handler runs which kind of action, filled by the feature modules at start. */
@Injectable()
export class ActionRegistry {
  private readonly handlers = new Map<string, ActionHandler>();

  register(...handlers: ActionHandler[]): void {
    for (const handler of handlers) {
      if (this.handlers.has(handler.kind)) throw new Error(`two handlers for action kind ${handler.kind}`);
      this.handlers.set(handler.kind, handler);
    }
  }

  handlerFor(kind: string): ActionHandler | undefined {
    return this.handlers.get(kind);
  }

  queueFor(kind: string): ActionQueueName | undefined {
    return this.handlers.get(kind)?.queue;
  }
}
