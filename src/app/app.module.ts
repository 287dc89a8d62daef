import { Module, type DynamicModule } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { AutomationsModule } from '../automations/automations.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ConfigModule } from '../config/config.module.js';
import { ConnectionConsoleModule } from '../connection-console/connection-console.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { HealthModule } from '../health/health.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ReconcileModule } from '../reconcile/reconcile.module.js';
import { RelayModule } from '../relay/relay.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { RevenueModule } from '../revenue/revenue.module.js';
import { SearchModule } from '../search/search.module.js';
import { SuggestionsModule } from '../suggestions/suggestions.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { OperationsModule } from '../operations/operations.module.js';
import { FunnelModule } from '../funnel/funnel.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(),
        AuthModule,
        ConnectionsModule,
        ConnectionConsoleModule,
        QueuesModule,
        HealthModule,
        ServiceApiModule,
        ProjectsModule,
        ActionsModule,
        SyncLogModule,
        WebhooksModule,
        RelayModule,
        MappingsModule,
        ReconcileModule,
        OperationsModule,
        FunnelModule,
        AlertsModule,
        AppointmentCrmModule,
        RecordCrmModule,
        AutomationsModule,
        SearchModule,
        SuggestionsModule,
        RevenueModule,
      ],
    };
  }
}
