import { Global, Module } from '@nestjs/common';
import { ObservabilityModule } from '../health/observability.module.js';
import { ConnectionCheckSchedule } from './connection-check-schedule.js';
import { ConnectionChecks } from './connection-checks.service.js';
import { ConnectionCheckRepository } from './connection-check.repository.js';
import { ConnectionRepository } from './connection.repository.js';
import { OAuthStateRepository } from './oauth-state.repository.js';
import { ConnectionViews } from './connection-views.service.js';
import { ConnectionsController } from './connections.controller.js';
import { ConnectionsService } from './connections.service.js';
import { OAuthCallbackController } from './oauth-callback.controller.js';
import { ZohoConnectService } from './zoho-connect.service.js';

/**
 * The connections (README "Connections"): the service, the appointment CRM, Zoho CRM and the webhook secrets, from
 * the environment or the console. Global: every client asks ConnectionsService for its settings on each call.
 */
@Global()
@Module({
  imports: [ObservabilityModule],
  controllers: [ConnectionsController, OAuthCallbackController],
  providers: [
    ConnectionRepository,
    ConnectionCheckRepository,
    OAuthStateRepository,
    ConnectionsService,
    ConnectionChecks,
    ConnectionCheckSchedule,
    ConnectionViews,
    ZohoConnectService,
  ],
  exports: [ConnectionsService, ConnectionViews],
})
export class ConnectionsModule {}
