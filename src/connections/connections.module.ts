import { Module } from '@nestjs/common';
import { ConnectionCheckRepository } from './connection-check.repository.js';
import { ConnectionRepository } from './connection.repository.js';
import { ConnectionsService } from './connections.service.js';

/**
 * The connections in effect (docs/connections.md): the service, the appointment CRM, Zoho CRM and the webhook
 * secrets, from the environment or the console. Every client imports it and asks ConnectionsService for its settings
 * on each call; their setting up from the console (routes, checks, Zoho's consent) is ConnectionConsoleModule's.
 */
@Module({
  providers: [ConnectionRepository, ConnectionCheckRepository, ConnectionsService],
  exports: [ConnectionRepository, ConnectionCheckRepository, ConnectionsService],
})
export class ConnectionsModule {}
