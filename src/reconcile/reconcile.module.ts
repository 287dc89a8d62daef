import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RelayModule } from '../relay/relay.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ReconcileController } from './reconcile.controller.js';
import { ReconcileActionsService } from './reconcile-actions.service.js';
import { ProposalFingerprints } from './proposal-fingerprints.js';
import { ReconcileProposalRepository } from './reconcile-proposal.repository.js';
import { ReconcileService } from './reconcile.service.js';

@Module({
  imports: [ConnectionsModule, QueuesModule, ActionsModule, SyncLogModule, MappingsModule, ServiceApiModule, WebhooksModule, RelayModule],
  controllers: [ReconcileController],
  providers: [ReconcileProposalRepository, ReconcileActionsService, ReconcileService, ProposalFingerprints],
})
export class ReconcileModule {}
