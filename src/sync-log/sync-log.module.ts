import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ObservabilityModule } from '../health/observability.module.js';
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
    ServiceActionsWorker,
    AppointmentCrmActionsWorker,
    RecordCrmActionsWorker,
  ],
  exports: [SyncLogRepository, CallTraceRepository, ActionRegistry, ActionRecorder],
})
export class SyncLogModule {}
