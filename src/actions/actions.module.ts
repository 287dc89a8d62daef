import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AlertsModule } from '../alerts/alerts.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { queueWorker } from '../queues/queue-worker.js';
import { QUEUES } from '../queues/queues.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ActionRegistryService } from './action-registry.service.js';
import { ActionRecorderService } from './action-recorder.service.js';
import { AdminAuditService } from './admin-audit.service.js';
import { ActionWorkerDeps, AppointmentCrmActionsWorker, RecordCrmActionsWorker, ServiceActionsWorker } from './action.worker.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { WriteFenceService } from './write-fence.service.js';

/**
 * The action engine: recording actions (dedupe and coalesce keys), the registry of their handlers, and one worker per
 * action queue, which runs an entry's handler and records its outcome in the sync log (SyncLogModule, the table).
 * Every feature module records its work through ActionRecorderService and marks the handlers of its actions with
 * `@RunsAction`, which ActionRegistryService finds among the providers. AdminAuditService records the admin writes that create no action as entries of their own.
 */
@Module({
  imports: [DiscoveryModule, AlertsModule, ObservabilityModule, QueuesModule, ProjectsModule, SyncLogModule],
  providers: [
    ActionRegistryService,
    ActionRecorderService,
    AdminAuditService,
    WriteFenceService,
    ActionWorkerDeps,
    // Association chunks pipeline up to the service's rate cap; CRM pushes stay gentle.
    queueWorker(ServiceActionsWorker, QUEUES.service, 10),
    queueWorker(AppointmentCrmActionsWorker, QUEUES.appointmentCrm, 4),
    queueWorker(RecordCrmActionsWorker, QUEUES.recordCrm, 4),
  ],
  exports: [ActionRegistryService, ActionRecorderService, AdminAuditService, WriteFenceService],
})
export class ActionsModule {}
