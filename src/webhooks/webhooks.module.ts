import { Global, Module } from '@nestjs/common';
import { DeliveryRouter } from './delivery-router.service.js';
import { WebhookEventHandlers } from './event-handlers.js';
import { InboxSweeper } from './inbox-sweeper.js';
import { InboxService } from './inbox.service.js';
import { RouteDeliveryWorker } from './route-delivery.processor.js';
import { RouteFeeder } from './route-feeder.js';
import { WebhooksController } from './webhooks.controller.js';

@Global()
@Module({
  controllers: [WebhooksController],
  providers: [WebhookEventHandlers, InboxService, RouteFeeder, DeliveryRouter, RouteDeliveryWorker, InboxSweeper],
  exports: [WebhookEventHandlers, DeliveryRouter, InboxService, InboxSweeper],
})
export class WebhooksModule {}
