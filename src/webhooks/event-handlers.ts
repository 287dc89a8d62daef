import { Injectable } from '@nestjs/common';
import type { NewAction } from '../sync-log/action.types.js';
import type { RoutedDelivery } from './service-events.js';

/**
 * An action a handler wants for a delivery. The router adds the trigger and the inbox id, and, when the handler
 * gives no dedupe key, one derived from the delivery (so routing the same delivery twice records nothing new).
 */
export type DeliveryAction = Omit<NewAction, 'trigger' | 'inboxId'>;

/**
 * What a CRM module implements to receive deliveries. It answers with the actions to record (possibly `skipped`
 * ones that say why nothing is pushed), or [] when the delivery is none of its business.
 */
export interface WebhookEventHandler {
  readonly name: string;
  actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]>;
  /**
   * Reconciliation: actions that repair this module's drift for one mapped project which the service's lists
   * cannot reveal by themselves (e.g. drawings whose versions changed since the last push). Approved proposals
   * and payments need nothing here: reconciliation replays them as made-up deliveries through `actionsFor`.
   */
  reconcileProject?(projectId: string): Promise<DeliveryAction[]>;
}

@Injectable()
export class WebhookEventHandlers {
  private readonly handlers: WebhookEventHandler[] = [];

  register(handler: WebhookEventHandler): void {
    this.handlers.push(handler);
  }

  all(): readonly WebhookEventHandler[] {
    return this.handlers;
  }
}
