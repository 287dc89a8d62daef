import { Global, Module } from '@nestjs/common';
import { DeliveryRouter } from './delivery-router.service.js';
import { WebhookEventHandlers } from './event-handlers.js';
import { InboxRepository } from './inbox.repository.js';
import { InboxService } from './inbox.service.js';
import { RouteDeliveryWorker } from './route-delivery.processor.js';
import { WebhooksController } from './webhooks.controller.js';

@Global()
@Module({
  controllers: [WebhooksController],
  providers: [WebhookEventHandlers, InboxRepository, InboxService, DeliveryRouter, RouteDeliveryWorker],
  exports: [WebhookEventHandlers, DeliveryRouter, InboxRepository],
})
export class WebhooksModule {}
