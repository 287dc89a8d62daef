import { Injectable } from '@nestjs/common';
import type { NewAction } from '../sync-log/action.types.js';
import type { RoutedDelivery } from './service-events.js';

/** An action a handler wants for a delivery; the router adds the trigger, the inbox id and a dedupe key. */
export type DeliveryAction = Omit<NewAction, 'trigger' | 'inboxId'>;

/**
 * What a CRM module implements to receive deliveries. It answers with the actions to record (possibly `skipped`
 * ones that say why nothing is pushed), or [] when the delivery is none of its business.
 */
export interface WebhookEventHandler {
  readonly name: string;
  actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]>;
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
