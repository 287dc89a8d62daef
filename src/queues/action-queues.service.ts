import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { QUEUES, type ActionQueueName } from './queues.js';

/** The queues that run sync actions, by name. */
@Injectable()
export class ActionQueuesService {
  private readonly queues: Record<ActionQueueName, Queue>;

  constructor(
    @InjectQueue(QUEUES.service) service: Queue,
    @InjectQueue(QUEUES.appointmentCrm) appointmentCrm: Queue,
    @InjectQueue(QUEUES.recordCrm) recordCrm: Queue,
  ) {
    this.queues = { [QUEUES.service]: service, [QUEUES.appointmentCrm]: appointmentCrm, [QUEUES.recordCrm]: recordCrm };
  }

  get(name: ActionQueueName): Queue {
    return this.queues[name];
  }
}
