import { Module } from '@nestjs/common';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { ConnectionCheckSchedule } from './connection-check-schedule.js';
import { ConnectionChecksService } from './connection-checks.service.js';
import { ConnectionViewsService } from './connection-views.service.js';
import { ConnectionsController } from './connections.controller.js';
import { OAuthCallbackController } from './oauth-callback.controller.js';
import { OAuthStateRepository } from './oauth-state.repository.js';
import { ZohoConnectService } from './zoho-connect.service.js';
import { SalesforceConnectService } from './salesforce-connect.service.js';
import { SalesforceCallbackController, SalesforceConnectionController } from './salesforce-connection.controller.js';
import { SchemaLimitGuard } from './schema-limit.guard.js';

/**
 * Setting the connections up from the console (docs/connections.md): the Connections routes, the checks before a
 * save and every 15 minutes, and Zoho's authorization-code flow. Above the CRM adapters, whose calls the checks make.
 */
@Module({
  imports: [ConnectionsModule, ObservabilityModule, QueuesModule, RecordCrmModule, AppointmentCrmModule, ActionsModule],
  controllers: [ConnectionsController, OAuthCallbackController, SalesforceConnectionController, SalesforceCallbackController],
  providers: [
    OAuthStateRepository,
    ConnectionChecksService,
    ConnectionCheckSchedule,
    ConnectionViewsService,
    ZohoConnectService,
    SalesforceConnectService,
    SchemaLimitGuard,
  ],
  exports: [ConnectionViewsService],
})
export class ConnectionConsoleModule {}
