import { Global, Module } from '@nestjs/common';
import { ActionQueue } from './action-queue.service.js';
import { ActionRegistry } from './action-registry.js';
import { ActionSweeper } from './action-sweeper.js';
import { ActionWorkerDeps } from './action-worker.js';
import { AppointmentCrmActionsWorker, RecordCrmActionsWorker, ServiceActionsWorker } from './action.processors.js';
import { SyncLogService } from './sync-log.service.js';

/** The sync log and the machinery that runs actions; every feature module records its work through it. */
@Global()
@Module({
  providers: [
    SyncLogService,
    ActionRegistry,
    ActionQueue,
    ActionSweeper,
    ActionWorkerDeps,
    ServiceActionsWorker,
    AppointmentCrmActionsWorker,
    RecordCrmActionsWorker,
  ],
  exports: [SyncLogService, ActionRegistry, ActionQueue, ActionSweeper],
})
export class SyncLogModule {}
