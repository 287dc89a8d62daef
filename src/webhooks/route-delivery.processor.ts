import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import { OutboundError } from '../http/outbound-error.js';
import { retryAfterBackoff } from '../queues/backoff.js';
import { runJobLater, whenDatabaseReady } from '../queues/jobs.js';
import { QUEUES, type RouteDeliveryJob } from '../queues/queues.js';
import { DeliveryRouter } from './delivery-router.service.js';
import { InboxDelivery } from './inbox.entity.js';

/** Routes stored deliveries. A failure (the service unreachable while resolving a payment's project) is retried. */
@Processor(QUEUES.webhooks, { concurrency: 8 })
export class RouteDeliveryWorker extends WorkerHost {
  private readonly logger = new Logger(RouteDeliveryWorker.name);
  private readonly backoff: ReturnType<typeof retryAfterBackoff>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly router: DeliveryRouter,
  ) {
    super();
    this.backoff = retryAfterBackoff(config.jobs.backoffBaseMs);
  }

  async process(job: Job<RouteDeliveryJob>, token?: string): Promise<void> {
    await whenDatabaseReady(this.database, job, token);
    const { inboxId } = job.data;
    try {
      await this.router.routeStored(inboxId);
    } catch (err) {
      const attempts = await this.countAttempt(inboxId, err as Error);
      const permanent = err instanceof OutboundError && !err.transient;
      if (permanent || attempts >= this.config.jobs.attempts) {
        await this.database.repo(InboxDelivery).update({ id: inboxId }, { status: 'failed' });
        this.logger.warn(`delivery ${inboxId} could not be routed: ${(err as Error).message}`);
        return;
      }
      await runJobLater(job, token, this.backoff(attempts, 'retry-after', err as Error));
    }
  }

  private async countAttempt(inboxId: string, err: Error): Promise<number> {
    const rows = await this.database.returning<{ attempts: number }>(
      `UPDATE webhook_inbox SET attempts = attempts + 1, error = $2 WHERE id = $1 RETURNING attempts`,
      [inboxId, err.message.slice(0, 2000)],
    );
    return rows[0]?.attempts ?? 1;
  }
}
