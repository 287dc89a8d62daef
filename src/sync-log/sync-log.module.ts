import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { ObservabilityModule } from '../health/observability.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { queueWorker } from '../queues/queue-worker.js';
import { QUEUES } from '../queues/queues.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ActionRegistryService } from './action-registry.service.js';
import { ActionRecorderService } from './action-recorder.service.js';
import { AdminAuditService } from './admin-audit.service.js';
import { CallTraceRepository } from './call-trace.repository.js';
import { ActionWorkerDeps, AppointmentCrmActionsWorker, RecordCrmActionsWorker, ServiceActionsWorker } from './action.processor.js';
import { SyncLogRepository } from './sync-log.repository.js';
import { SyncLogsController } from './sync-logs.controller.js';
import { TargetNamesService } from './target-names.service.js';

/**
 * The sync log, its routes, and the machinery that runs actions; every feature module records its work through it
 * and registers the handlers of its actions with ActionRegistryService. AdminAuditService records the admin writes that create no
 * action as entries of their own.
 */
@Module({
  imports: [AlertsModule, ObservabilityModule, QueuesModule, ProjectsModule],
  controllers: [SyncLogsController],
  providers: [
    SyncLogRepository,
    CallTraceRepository,
    ActionRegistryService,
    ActionRecorderService,
    AdminAuditService,
    TargetNamesService,
    ActionWorkerDeps,
    // Association chunks pipeline up to the service's rate cap; CRM pushes stay gentle.
    queueWorker(ServiceActionsWorker, QUEUES.service, 10),
    queueWorker(AppointmentCrmActionsWorker, QUEUES.appointmentCrm, 4),
    queueWorker(RecordCrmActionsWorker, QUEUES.recordCrm, 4),
  ],
  exports: [SyncLogRepository, CallTraceRepository, ActionRegistryService, ActionRecorderService, AdminAuditService, TargetNamesService],
})
export class SyncLogModule {}
