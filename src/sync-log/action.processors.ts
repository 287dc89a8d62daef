import { Processor } from '@nestjs/bullmq';
import { QUEUES } from '../queues/queues.js';
import { ActionWorker, ActionWorkerDeps } from './action-worker.js';

// One worker class per queue, because @Processor binds a class to one queue name. Concurrency lets association
// chunks pipeline up to the service's rate cap while CRM pushes stay gentle.

@Processor(QUEUES.service, { concurrency: 10 })
export class ServiceActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.service);
  }
}

@Processor(QUEUES.appointmentCrm, { concurrency: 4 })
export class AppointmentCrmActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.appointmentCrm);
  }
}

@Processor(QUEUES.recordCrm, { concurrency: 4 })
export class RecordCrmActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.recordCrm);
  }
}
