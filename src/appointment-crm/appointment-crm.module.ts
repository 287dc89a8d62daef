import { Inject, Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordNames, type RecordNaming } from '../mappings/mapping-names.service.js';
import type { Mapping } from '../mappings/mapping.row.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { HttpAppointmentCrm } from './adapters/rest/appointment-crm.client.js';
import { APPOINTMENT_CRM, type AppointmentCrm } from './appointment-crm.js';
import { readAppointment } from './adapters/rest/appointment-reader.js';
import { AppointmentDeliveriesService } from './appointment-deliveries.service.js';
import { AppointmentActionsService } from './appointment-actions.service.js';
import { AppointmentDrawingPushRepository } from './appointment-drawing-push.repository.js';
import { AppointmentStatusesRepository } from './appointment-statuses.repository.js';
import { FileReplaceRepository } from './file-replace.repository.js';
import { AppointmentSendController } from './appointment-send.controller.js';
import { ConnectedProductsService } from './connected-products.service.js';
import { SalesforceOrgsService } from './adapters/salesforce/salesforce-orgs.service.js';
import { SalesforceSessionRepository } from './adapters/salesforce/salesforce-session.repository.js';
import { SelectedAppointmentCrm } from './selected-appointment-crm.js';
import { ServicePushChecksService } from './service-push-checks.service.js';

/**
 * The appointment CRM: its adapter, push flows, webhook handling and send action. Always imported by AppModule: its
 * connection may come from the environment or later from the console, and each call reads it anew from
 * ConnectionsService, so a CRM connected later needs no restart (an unconnected CRM's actions fail with the reason).
 */
@Module({
  imports: [ConnectionsModule, ObservabilityModule, QueuesModule, ActionsModule, MappingsModule, ServiceApiModule],
  controllers: [AppointmentSendController],
  providers: [
    HttpAppointmentCrm,
    SalesforceOrgsService,
    SalesforceSessionRepository,
    SelectedAppointmentCrm,
    ServicePushChecksService,
    { provide: APPOINTMENT_CRM, useExisting: SelectedAppointmentCrm },
    ConnectedProductsService,
    AppointmentDrawingPushRepository,
    FileReplaceRepository,
    AppointmentActionsService,
    AppointmentDeliveriesService,
    AppointmentStatusesRepository,
  ],
  exports: [APPOINTMENT_CRM, AppointmentActionsService, SelectedAppointmentCrm, SalesforceOrgsService, AppointmentStatusesRepository],
})
export class AppointmentCrmModule {
  constructor(@Inject(APPOINTMENT_CRM) private readonly crm: AppointmentCrm) {}

  /** An appointment is known by its customer's name; its CRM gives where it opens (MappingNamesService). */
  @RecordNames('appointment', { givesUrls: true })
  async appointmentName(mapping: Mapping): Promise<RecordNaming> {
    const appointment = readAppointment(await this.crm.getAppointment(mapping.appointmentId!));
    return { name: appointment.customer?.name ?? null, webUrl: appointment.web_url ?? null };
  }
}
