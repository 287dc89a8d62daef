import { Global, Module } from '@nestjs/common';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ALERT_SINK } from './alert-sink.js';
import { AlertRepository } from './alert.repository.js';
import { AlertsController } from './alerts.controller.js';
import { AlertsService } from './alerts.service.js';
import { RetentionService } from './retention.service.js';

/**
 * Alerts (`ALERT_WEBHOOK_URL`) and retention. Global so that the sync log's workers, the webhooks intake and the Zoho
 * adapter can inject ALERT_SINK (`@Optional()`) without importing this module: it imports none of theirs.
 */
@Global()
@Module({
  imports: [SyncLogModule, WebhooksModule],
  controllers: [AlertsController],
  providers: [AlertRepository, AlertsService, { provide: ALERT_SINK, useExisting: AlertsService }, RetentionService],
  exports: [ALERT_SINK],
})
export class AlertsModule {}
