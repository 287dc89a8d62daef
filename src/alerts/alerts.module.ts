import { Module } from '@nestjs/common';
import { QueuesModule } from '../queues/queues.module.js';
import { ALERT_SINK } from './alert-sink.js';
import { AlertRepository } from './alert.repository.js';
import { AlertsController } from './alerts.controller.js';
import { AlertsService } from './alerts.service.js';

/**
 * Alerts (`ALERT_WEBHOOK_URL`). The sync log's workers, the relay, the webhooks intake and the Zoho adapter import it
 * for ALERT_SINK; it imports none of theirs. (The retention of old alerts is the operations module's, beside that of
 * the sync log and the inbox.)
 */
@Module({
  imports: [QueuesModule],
  controllers: [AlertsController],
  providers: [AlertRepository, AlertsService, { provide: ALERT_SINK, useExisting: AlertsService }],
  exports: [ALERT_SINK, AlertRepository],
})
export class AlertsModule {}
