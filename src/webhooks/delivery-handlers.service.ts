import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DeliveryHandler, type WebhookEventHandler } from '../actions/delivery-handler.js';

/** Every `@DeliveryHandler()` provider, found at start. */
@Injectable()
export class DeliveryHandlersService implements OnModuleInit {
  private handlers: WebhookEventHandler[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    this.handlers = this.discovery
      .getProviders({ metadataKey: DeliveryHandler.KEY })
      .map((wrapper) => wrapper.instance as WebhookEventHandler)
      .filter((handler) => handler && typeof handler.actionsFor === 'function');
  }

  all(): readonly WebhookEventHandler[] {
    return this.handlers;
  }
}
