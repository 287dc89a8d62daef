import { Module } from '@nestjs/common';
import { QueuesModule } from '../queues/queues.module.js';
import { ALERT_SINK } from './alert-sink.js';
import { AlertRepository } from './alert.repository.js';
import { AlertsController } from './alerts.controller.js';
import { AlertsService } from './alerts.service.js';
import { RetentionService } from './retention.service.js';

/**
 * Alerts (`ALERT_WEBHOOK_URL`) and retention. The sync log's workers, the relay, the webhooks intake and the Zoho
 * adapter import it for ALERT_SINK; it imports none of theirs.
 */
@Module({
  imports: [QueuesModule],
  controllers: [AlertsController],
  providers: [AlertRepository, AlertsService, { provide: ALERT_SINK, useExisting: AlertsService }, RetentionService],
  exports: [ALERT_SINK],
})
export class AlertsModule {}
