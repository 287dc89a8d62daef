import type { Job } from 'bullmq';

/** The jobs this process is running, with their lock tokens (every worker registered with queueWorker counts them). */
const running = new Map<Job, string>();

export async function whileRunning<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
  if (token) running.set(job, token);
  try {
    return await work();
  } finally {
    running.delete(job);
  }
}

/**
 * Puts every job this process is still running back on its queue, its lock released, for another replica to take at
 * once: for a stop that cannot wait for them any longer (otherwise they would wait for their lock to expire and the
 * stalled-job check). Answers how many went back.
 */
export async function handBackRunningJobs(): Promise<number> {
  const jobs = [...running];
  running.clear();
  const results = await Promise.allSettled(jobs.map(([job, token]) => job.moveToWait(token)));
  return results.filter((r) => r.status === 'fulfilled').length;
}
