import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../health/observability.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { HttpAppointmentCrm } from './appointment-crm.client.js';
import { APPOINTMENT_CRM } from './appointment-crm.js';
import { AppointmentDeliveriesService } from './appointment-deliveries.service.js';
import { AppointmentActionsService } from './appointment-actions.service.js';
import { AppointmentDrawingPushRepository } from './appointment-drawing-push.repository.js';
import { AppointmentSendController } from './appointment-send.controller.js';
import { ConnectedProducts } from './connected-products.service.js';

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
    AppointmentDrawingPushRepository,
    AppointmentActionsService,
    AppointmentDeliveriesService,
  ],
  exports: [APPOINTMENT_CRM, AppointmentActionsService],
})
export class AppointmentCrmModule {}
