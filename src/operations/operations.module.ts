import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { ConnectionConsoleModule } from '../connection-console/connection-console.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { BulkRetryController } from './bulk-retry.controller.js';
import { DeliveriesController } from './deliveries.controller.js';
import { OperationsService } from './operations.service.js';
import { OverviewController } from './overview.controller.js';
import { RetentionService } from './retention.service.js';
import { ProjectsController } from './projects.controller.js';
import { SyncLogsController } from './sync-logs.controller.js';

/**
 * The operations API for the console: the overview, one project's mappings, deliveries and action chains, the
 * webhook inbox with replay, the sync log (list, one entry, retry), and the bulk retry of failed actions. Reads go through the repositories of the tables
 * (sync log, inbox, mappings); a replay routes through the webhooks module's router, so the relay stays the one path
 * onto the queues. Also the daily retention of finished sync log entries, deliveries and alerts.
 */
@Module({
  imports: [
    AlertsModule,
    ConnectionsModule,
    ConnectionConsoleModule,
    MappingsModule,
    ObservabilityModule,
    ProjectsModule,
    QueuesModule,
    RecordCrmModule,
    ActionsModule,
    SyncLogModule,
    WebhooksModule,
  ],
  controllers: [OverviewController, ProjectsController, DeliveriesController, SyncLogsController, BulkRetryController],
  providers: [OperationsService, RetentionService],
})
export class OperationsModule {}
