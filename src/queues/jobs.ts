import { Logger } from '@nestjs/common';
import { DelayedError, type Job, type JobsOptions, type Queue } from 'bullmq';
import type { DatabaseService } from '../database/database.service.js';

const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);
const logger = new Logger('Jobs');

/**
 * Adds a job under a deterministic id unless a live job with that id is there already (so a second enqueue is a
 * no-op). A finished job under the id is removed first: BullMQ would otherwise keep answering with it, and the
 * work it stands for was found unfinished in Postgres.
 */
export async function addUnlessLive(queue: Queue, name: string, data: unknown, jobId: string, opts: Omit<JobsOptions, 'jobId'> = {}): Promise<void> {
  const existing = await queue.getJob(jobId);
  if (existing) {
    if (LIVE_STATES.has(await existing.getState())) return;
    // A removal that fails leaves the old job, and the add below is then a no-op; the next sweep tries again.
    await existing.remove().catch((err: Error) => logger.warn(`could not remove finished job ${jobId}: ${err.message}`));
  }
  await queue.add(name, data, { ...opts, jobId });
}

/** Puts the running job back on its queue to run in `delayMs`; the processor must let the thrown DelayedError out. */
export async function runJobLater(job: Job, token: string | undefined, delayMs: number): Promise<never> {
  await job.moveToDelayed(Date.now() + Math.max(0, delayMs), token);
  throw new DelayedError();
}

/**
 * How soon a job that could not reach Postgres runs again: a restart takes a few seconds, and a job waiting longer
 * than the outage delays its work past the recovery goal (10 s). A try costs one failed connection.
 */
export const DATABASE_RETRY_MS = 1_000;

/** Every job needs Postgres: while it is unreachable, the job waits on the queue instead of failing. */
export async function whenDatabaseReady(database: DatabaseService, job: Job, token: string | undefined): Promise<void> {
  try {
    await database.whenReady(10_000);
  } catch {
    await runJobLater(job, token, DATABASE_RETRY_MS);
  }
}
