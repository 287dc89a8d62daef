import { DiscoveryService } from '@nestjs/core';
import type { RoutedDelivery } from '../domain/service-events.js';
import type { DistributiveOmit, NewAction } from './action.types.js';

/**
 * An action a handler wants for a delivery. The router adds the trigger and the inbox id, and, when the handler
 * gives no dedupe key, one derived from the delivery (so routing the same delivery twice records nothing new).
 */
export type DeliveryAction = DistributiveOmit<NewAction, 'trigger' | 'inboxId'>;

/**
 * What a module implements to receive deliveries (and marks with `@DeliveryHandler()` so the router finds it). It
 * answers with the actions to record (possibly `skipped` ones that say why nothing is pushed), or [] when the
 * delivery is none of its business.
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

/** Marks a provider that implements `WebhookEventHandler`. */
export const DeliveryHandler = DiscoveryService.createDecorator<void>();
