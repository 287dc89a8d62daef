import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { MaintenanceTrigger } from './maintenance-task.decorator.js';
import { MaintenanceTasksService } from './maintenance.service.js';

/** Runs the maintenance task a scheduled or requested job names. */
@Injectable()
export class MaintenanceWorker extends WorkerHost {
  private readonly logger = new Logger(MaintenanceWorker.name);

  constructor(private readonly tasks: MaintenanceTasksService) {
    super();
  }

  async process(job: Job<{ trigger?: MaintenanceTrigger } & Record<string, unknown>>): Promise<void> {
    const task = this.tasks.get(job.name);
    if (!task) {
      this.logger.warn(`no maintenance task named ${job.name}; job dropped`);
      return;
    }
    await task.run(job.data.trigger ?? 'schedule', job.data);
  }
}
