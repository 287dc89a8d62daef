import { Processor, type WorkerHost } from '@nestjs/bullmq';
import type { FactoryProvider, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, WorkerOptions } from 'bullmq';
import { hostname } from 'node:os';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { QueueName } from './queues.js';
import { whileRunning } from './running-jobs.js';

interface Processing {
  process(job: Job, token?: string): Promise<unknown>;
}

type DaemonWorkerOptions = Pick<WorkerOptions, 'name' | 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>;

/**
 * What every worker of the daemon is built with, besides its queue: its concurrency, the config's lock settings, and
 * the replica's `<host>:<pid>` as its name, which BullMQ writes on each job it takes (`processedBy`).
 */
export function workerOptions(jobs: AppConfig['jobs'], concurrency: number): DaemonWorkerOptions {
  return {
    name: `${hostname()}:${process.pid}`,
    concurrency,
    lockDuration: jobs.lockDurationMs,
    stalledInterval: jobs.stalledIntervalMs,
    maxStalledCount: jobs.maxStalledCount,
  };
}

/**
 * Registers a worker class (an @Injectable WorkerHost, without @Processor) to run `queue` with `concurrency` and the
 * lock settings of this app's config. @nestjs/bullmq builds each BullMQ worker from the @Processor options of its
 * provider's class, fixed when the class is declared; so each app declares a subclass with its own options, and
 * creates it with the class's own constructor dependencies. The subclass also counts the jobs it runs, which a stop
 * past its deadline hands back (handBackRunningJobs).
 */
export function queueWorker<T extends WorkerHost>(worker: Type<T>, queue: QueueName, concurrency: number): FactoryProvider<Promise<T>> {
  return {
    provide: worker,
    inject: [ModuleRef, APP_CONFIG],
    useFactory: (moduleRef: ModuleRef, config: AppConfig) => {
      const configured = {
        [worker.name]: class extends (worker as Type<Processing>) {
          override process(job: Job, token?: string): Promise<unknown> {
            return whileRunning(job, token, () => super.process(job, token));
          }
        },
      }[worker.name];
      Processor(queue, workerOptions(config.jobs, concurrency))(configured);
      return moduleRef.create(configured) as Promise<T>;
    },
  };
}
