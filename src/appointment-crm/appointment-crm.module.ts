import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { ActionRegistry } from '../sync-log/action-registry.js';
import { WebhookEventHandlers } from '../webhooks/event-handlers.js';
import { HttpAppointmentCrm } from './appointment-crm.client.js';
import { APPOINTMENT_CRM } from './appointment-crm.js';
import { AppointmentEventsHandler } from './appointment-events.handler.js';
import { AppointmentPushService } from './appointment-push.service.js';
import { AppointmentSendController } from './appointment-send.controller.js';
import { ConnectedProducts } from './connected-products.js';

/**
 * The appointment CRM: its adapter, push flows, webhook handling and send action. Imported by AppModule only
 * when APPOINTMENT_CRM_BASE_URL is set.
 */
@Module({
  controllers: [AppointmentSendController],
  providers: [
    { provide: APPOINTMENT_CRM, useClass: HttpAppointmentCrm },
    ConnectedProducts,
    AppointmentPushService,
    AppointmentEventsHandler,
  ],
  exports: [APPOINTMENT_CRM, AppointmentPushService],
})
export class AppointmentCrmModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly webhookHandlers: WebhookEventHandlers,
    private readonly pushes: AppointmentPushService,
    @Inject(AppointmentEventsHandler) private readonly events: AppointmentEventsHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(...this.pushes.handlers());
    this.webhookHandlers.register(this.events);
  }
}
