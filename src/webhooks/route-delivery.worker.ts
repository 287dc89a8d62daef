import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import { OutboundError } from '../http/outbound-error.js';
import { retryAfterBackoff } from '../queues/backoff.js';
import { runJobLater, whenDatabaseReady } from '../queues/jobs.js';
import type { RouteDeliveryJob } from '../queues/queues.js';
import { DeliveryRouterService } from './delivery-router.service.js';
import { InboxRepository } from './inbox.repository.js';

/** Routes stored deliveries. A failure (the service unreachable while resolving a payment's project) is retried. */
@Injectable()
export class RouteDeliveryWorker extends WorkerHost {
  private readonly logger = new Logger(RouteDeliveryWorker.name);
  private readonly backoff: ReturnType<typeof retryAfterBackoff>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly router: DeliveryRouterService,
    private readonly inbox: InboxRepository,
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
      const attempts = await this.inbox.countRouteAttempt(inboxId, (err as Error).message);
      const permanent = err instanceof OutboundError && !err.transient;
      if (permanent || attempts >= this.config.jobs.attempts) {
        await this.inbox.markFailed(inboxId);
        this.logger.warn(`delivery ${inboxId} could not be routed: ${(err as Error).message}`);
        return;
      }
      await runJobLater(job, token, this.backoff(attempts, 'retry-after', err as Error));
    }
  }
}
