import { SetMetadata } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';

/** What started a task's run: its schedule, an admin (`runNow`), or the start of this process. */
export type MaintenanceTrigger = 'schedule' | 'admin' | 'startup';

export interface MaintenanceTaskOptions {
  /** Period of the schedule from the configuration; 0 or less: run only when asked (`runNow`). */
  every(config: AppConfig): number;
  /** Also run once in this process as soon as the database is ready (trigger `startup`). */
  atStartup?: boolean;
  /** The schedule's first run comes one period after it is first set up, not at once (BullMQ's default). */
  firstRunAfterOnePeriod?: boolean;
}

const MAINTENANCE_TASK = 'crm-sync:maintenance-task';

/** The task a method was marked as, if it was. */
export function maintenanceTaskOf(method: unknown): (MaintenanceTaskOptions & { name: string }) | undefined {
  return typeof method === 'function' ? (Reflect.getMetadata(MAINTENANCE_TASK, method) as (MaintenanceTaskOptions & { name: string }) | undefined) : undefined;
}

/**
 * Marks a provider's method as a periodic task (a BullMQ job scheduler: one run per period across replicas), run with
 * what triggered it. MaintenanceTasksService finds it among the providers at start; two tasks of one name stop the
 * start.
 */
export function MaintenanceTask(name: string, options: MaintenanceTaskOptions) {
  return <M extends (trigger: MaintenanceTrigger, data: Record<string, unknown>) => Promise<void>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    SetMetadata(MAINTENANCE_TASK, { name, ...options })(target, key, descriptor);
  };
}
