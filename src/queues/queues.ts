import type { DefaultJobOptions } from 'bullmq';

/**
 * Queue names. One queue per system the work talks to, so a slow or failing CRM never holds up the others.
 * Every job carries only an id; the durable description of the work is the Postgres row it names.
 */
export const QUEUES = {
  /** Routes stored webhook deliveries into sync actions. Job id: `inbox-<inbox id>`. */
  webhooks: 'webhooks',
  /** Actions against the service itself (association). */
  service: 'service-actions',
  appointmentCrm: 'appointment-crm-actions',
  recordCrm: 'record-crm-actions',
  /** Reconciliation runs and the sweep. */
  maintenance: 'maintenance',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
export const ACTION_QUEUES = [QUEUES.service, QUEUES.appointmentCrm, QUEUES.recordCrm] as const;
export type ActionQueueName = (typeof ACTION_QUEUES)[number];

export interface RouteDeliveryJob {
  inboxId: string;
}

export interface RunActionJob {
  entryId: string;
}

export const JOB_NAMES = {
  routeDelivery: 'route-delivery',
  runAction: 'run-action',
  sweep: 'sweep',
  reconcile: 'reconcile',
} as const;

/**
 * A stored delivery's route job. Its id is the delivery's, so putting it on the queue again while it is live is a
 * no-op: the intake, the feeder and the sweep all build it here, or they would not deduplicate each other.
 */
export function routeDeliveryJob(inboxId: string): { name: string; data: RouteDeliveryJob; jobId: string } {
  return { name: JOB_NAMES.routeDelivery, data: { inboxId }, jobId: `inbox-${inboxId}` };
}
/** Each admin retry of an entry gets a job of its own, so the finished job of the previous run never stands in the way. */
export const actionJobId = (entryId: string, retryBase = 0): string => `sync-${entryId}-${retryBase}`;

/** An action's job, built here for the relay and its recovery alike, or they would not deduplicate each other. */
export function runActionJob(entryId: string, retryBase: number): { name: string; data: RunActionJob; jobId: string } {
  return { name: JOB_NAMES.runAction, data: { entryId }, jobId: actionJobId(entryId, retryBase) };
}

/**
 * One BullMQ attempt per job: the action worker counts tries on the sync log entry and re-delays the job itself
 * (honouring Retry-After), so tries survive a lost queue. Completed jobs are kept an hour so that a second enqueue
 * with the same job id stays a no-op while the row's state catches up; failed jobs a week, for inspection.
 */
export function defaultJobOptions(): DefaultJobOptions {
  return {
    attempts: 1,
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}
