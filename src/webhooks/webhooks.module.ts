import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AlertsModule } from '../alerts/alerts.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { queueWorker } from '../queues/queue-worker.js';
import { QUEUES } from '../queues/queues.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { DeliveryRouterService } from './delivery-router.service.js';
import { DeliveryHandlersService } from './delivery-handlers.service.js';
import { InboxRepository } from './inbox.repository.js';
import { InboxService } from './inbox.service.js';
import { RouteDeliveryWorker } from './route-delivery.worker.js';
import { WebhooksController } from './webhooks.controller.js';

/** The service's webhooks: intake into the inbox, and routing of stored deliveries into sync actions. */
@Module({
  imports: [DiscoveryModule, AlertsModule, ConnectionsModule, ObservabilityModule, QueuesModule, ActionsModule, MappingsModule, ServiceApiModule],
  controllers: [WebhooksController],
  providers: [DeliveryHandlersService, InboxRepository, InboxService, DeliveryRouterService, queueWorker(RouteDeliveryWorker, QUEUES.webhooks, 8)],
  exports: [DeliveryRouterService, InboxRepository],
})
export class WebhooksModule {}
