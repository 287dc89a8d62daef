import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../health/observability.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
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
  imports: [ObservabilityModule, SyncLogModule, MappingsModule, ServiceApiModule],
  controllers: [AppointmentSendController],
  providers: [
    { provide: APPOINTMENT_CRM, useClass: HttpAppointmentCrm },
    ConnectedProducts,
    AppointmentPushService,
    AppointmentEventsHandler,
  ],
  exports: [APPOINTMENT_CRM, AppointmentPushService],
})
export class AppointmentCrmModule {}
