import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../health/observability.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { BulkRetryController } from './bulk-retry.controller.js';
import { DeliveriesController } from './deliveries.controller.js';
import { OperationsService } from './operations.service.js';
import { OverviewController } from './overview.controller.js';
import { ProjectsController } from './projects.controller.js';

/**
 * The operations API for the console: the overview, one project's mappings, deliveries and action chains, the
 * webhook inbox with replay, and the bulk retry of failed actions. Reads go through the repositories of the tables (sync log, inbox, mappings);
 * a replay routes through the webhooks module's router, so the relay stays the one path onto the queues.
 */
@Module({
  imports: [ObservabilityModule, SyncLogModule, WebhooksModule, MappingsModule],
  controllers: [OverviewController, ProjectsController, DeliveriesController, BulkRetryController],
  providers: [OperationsService],
})
export class OperationsModule {}
