import { Module } from '@nestjs/common';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { AutomationSettingsModule } from '../crm-settings/automation-settings.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { AutomationActionsService } from './automation-actions.service.js';
import { AutomationReadsRepository } from './automation-reads.repository.js';
import { AutomationPollRepository } from './automation-poll.repository.js';
import { AutomationPollerService } from './automation-poller.service.js';
import { AutomationsController } from './automations.controller.js';
import { ProjectCreationService } from './project-creation.service.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { NotificationChannelRepository } from './notification-channel.repository.js';
import { RecordNotificationsController } from './record-notifications.controller.js';
import { RecordNotificationsService } from './record-notifications.service.js';

/** Projects from the CRMs (docs/automations.md): the settings' routes, the readers of each CRM's changes, `create_project`. */
@Module({
  imports: [
    AutomationSettingsModule,
    ActionsModule,
    SyncLogModule,
    QueuesModule,
    MappingsModule,
    ServiceApiModule,
    AppointmentCrmModule,
    RecordCrmModule,
    ConnectionsModule,
  ],
  controllers: [AutomationsController, RecordNotificationsController],
  exports: [AutomationReadsRepository],
  providers: [
    AutomationPollRepository,
    AutomationReadsRepository,
    AutomationPollerService,
    ProjectCreationService,
    AutomationActionsService,
    NotificationChannelRepository,
    RecordNotificationsService,
  ],
})
export class AutomationsModule {}
