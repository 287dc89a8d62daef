import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ObservabilityModule } from '../health/observability.module.js';
import { queueWorker } from '../queues/queue-worker.js';
import { QUEUES } from '../queues/queues.js';
import { ActionRegistry } from './action-registry.service.js';
import { ActionRecorder } from './action-recorder.service.js';
import { CallTraceRepository } from './call-trace.repository.js';
import { ActionWorkerDeps, AppointmentCrmActionsWorker, RecordCrmActionsWorker, ServiceActionsWorker } from './action.processor.js';
import { SyncLogRepository } from './sync-log.repository.js';

/** The sync log and the machinery that runs actions; every feature module records its work through it. */
@Module({
  imports: [DiscoveryModule, ObservabilityModule],
  providers: [
    SyncLogRepository,
    CallTraceRepository,
    ActionRegistry,
    ActionRecorder,
    ActionWorkerDeps,
    // Association chunks pipeline up to the service's rate cap; CRM pushes stay gentle.
    queueWorker(ServiceActionsWorker, QUEUES.service, 10),
    queueWorker(AppointmentCrmActionsWorker, QUEUES.appointmentCrm, 4),
    queueWorker(RecordCrmActionsWorker, QUEUES.recordCrm, 4),
  ],
  exports: [SyncLogRepository, CallTraceRepository, ActionRegistry, ActionRecorder],
})
export class SyncLogModule {}
