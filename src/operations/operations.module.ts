import { Module } from '@nestjs/common';
import { ConnectionSetupModule } from '../connection-setup/connection-setup.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../health/observability.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { BulkRetryController } from './bulk-retry.controller.js';
import { DeliveriesController } from './deliveries.controller.js';
import { OperationsRepository } from './operations.repository.js';
import { OperationsService } from './operations.service.js';
import { OverviewController } from './overview.controller.js';
import { ProjectsController } from './projects.controller.js';

/**
 * The operations API for the console: the overview, one project's mappings, deliveries and action chains, the
 * webhook inbox with replay, and the bulk retry of failed actions. Reads go through OperationsRepository (the SQL);
 * a replay routes through the webhooks module's router, so the relay stays the one path onto the queues.
 */
@Module({
  imports: [ConnectionsModule, ConnectionSetupModule, ObservabilityModule, QueuesModule, SyncLogModule, WebhooksModule],
  controllers: [OverviewController, ProjectsController, DeliveriesController, BulkRetryController],
  providers: [OperationsRepository, OperationsService],
})
export class OperationsModule {}
