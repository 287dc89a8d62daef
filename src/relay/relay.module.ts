import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { RedisLossWatcher } from './redis-loss.watcher.js';
import { RelayRecoveryService } from './relay-recovery.service.js';
import { RelayService } from './relay.service.js';
import { UnhandledActions } from './unhandled-actions.js';

/** The one path from stored work (inbox deliveries, queued actions) to the queues. */
@Module({
  imports: [AlertsModule, ObservabilityModule, QueuesModule, ActionsModule, SyncLogModule, WebhooksModule],
  providers: [RelayService, RelayRecoveryService, RedisLossWatcher, UnhandledActions],
  exports: [RelayService, RelayRecoveryService],
})
export class RelayModule {}
