import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { decoratedMethods } from '../discovery/decorated-methods.js';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import { maintenanceTaskOf, type MaintenanceTrigger } from './maintenance-task.decorator.js';
import { QUEUES } from './queues.js';

export interface MaintenanceTask {
  name: string;
  /** Period of the schedule; 0 or less: run only when asked (`runNow`). */
  everyMs: number;
  /** Also run once in this process as soon as the database is ready (trigger `startup`). */
  atStartup?: boolean;
  /** The schedule's first run comes one period after it is first set up, not at once (BullMQ's default). */
  firstRunAfterOnePeriod?: boolean;
  /** `Class.method`, for messages. */
  source: string;
  run(trigger: MaintenanceTrigger, data: Record<string, unknown>): Promise<void>;
}

/**
 * Periodic work (sweeps, reconciliation): the `@MaintenanceTask` methods of every provider, found at start. Each task
 * is a BullMQ job scheduler: however many replicas run, one job per period is produced, and whichever worker is free
 * takes it.
 */
@Injectable()
export class MaintenanceTasksService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(MaintenanceTasksService.name);
  private readonly tasks = new Map<string, MaintenanceTask>();

  constructor(
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
    private readonly database: DatabaseService,
    private readonly discovery: DiscoveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    for (const { mark: task, source, call } of decoratedMethods<NonNullable<ReturnType<typeof maintenanceTaskOf>>, MaintenanceTask['run']>(
      this.discovery,
      maintenanceTaskOf,
    )) {
      const other = this.tasks.get(task.name);
      if (other) throw new Error(`two maintenance tasks named ${task.name}: ${other.source} and ${source}`);
      const { name, every, atStartup, firstRunAfterOnePeriod } = task;
      this.tasks.set(name, { name, everyMs: every(this.config), atStartup, firstRunAfterOnePeriod, source, run: call });
    }
  }

  get(name: string): MaintenanceTask | undefined {
    return this.tasks.get(name);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    for (const task of this.tasks.values()) {
      if (task.atStartup) {
        void this.database
          .whenReady(24 * 3600_000)
          .then(() => task.run('startup', {}))
          .catch((err: Error) => this.logger.warn(`start-up run of ${task.name} failed: ${err.message}`));
      }
    }
  }

  /** Sets up every task's schedule in Redis (again, after Redis lost its data: the schedules went with it). */
  async schedule(): Promise<void> {
    for (const task of this.tasks.values()) {
      const schedule =
        task.everyMs > 0
          ? this.queue.upsertJobScheduler(
              task.name,
              { every: task.everyMs, ...(task.firstRunAfterOnePeriod ? { startDate: Date.now() + task.everyMs } : {}) },
              { name: task.name, data: { trigger: 'schedule' } },
            )
          : this.queue.removeJobScheduler(task.name);
      // Redis may be down at start; the schedule is then set up by the next replica start, and readiness says why.
      void Promise.resolve(schedule).catch((err: Error) => this.logger.warn(`could not schedule ${task.name}: ${err.message}`));
    }
  }

  /** Runs a task soon on whichever replica is free; returns the job id. */
  async runNow(name: string, data: Record<string, unknown> = {}, jobId?: string): Promise<string> {
    const job = await this.queue.add(name, { trigger: 'admin', ...data }, { jobId, removeOnComplete: { age: 3600 }, removeOnFail: { age: 86400 } });
    return job.id ?? name;
  }
}
