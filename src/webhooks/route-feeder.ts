import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MetricsService } from '../health/metrics.service.js';
import { QUEUES, routeDeliveryJob } from '../queues/queues.js';
import { InboxService } from './inbox.service.js';

const JOBS_PER_BULK = 500;
/** Beyond this many held deliveries, new ones are left to the inbox sweep: memory stays bounded in a long burst. */
const MAX_HELD = 100_000;
/** A shutdown waits this long for held deliveries to reach Redis; the rest are left to the next sweep. */
const SHUTDOWN_RELEASE_MS = 5_000;

/**
 * Puts newly stored deliveries on the route queue, each as soon as it is stored, except during a burst.
 *
 * While webhooks arrive at `burstPerSecond` or more, a route job costs the intake more than the delivery's storing
 * does, and a webhook answered late is timed out and sent again by the service, which adds to the load. So during a
 * burst the deliveries are held here (they are safe in Postgres, where the sweep finds them if this process dies), a
 * trickle of `burstFeedPerSecond` keeps routing going, and the rest are enqueued the moment the burst ends.
 */
@Injectable()
export class RouteFeeder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RouteFeeder.name);
  private held: string[] = [];
  private releaseScheduled = false;
  private bursting = false;
  /** `inbox.received` when the current sample began; a burst is `burstPerSample` deliveries within one sample. */
  private sampleStart = 0;
  private readonly burstPerSample: number;
  private readonly feedPerSample: number;
  private leftToSweep = 0;
  private releasing: Promise<void> = Promise.resolve();
  private sampler?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inbox: InboxService,
    private readonly metrics: MetricsService,
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue,
  ) {
    const { burstPerSecond, burstFeedPerSecond, sampleMs } = config.webhooks.routeFeed;
    this.burstPerSample = Math.max(1, Math.round((burstPerSecond * sampleMs) / 1000));
    this.feedPerSample = Math.max(1, Math.round((burstFeedPerSecond * sampleMs) / 1000));
  }

  /** A newly stored delivery. It cannot have a job yet, so none is looked up; nothing here waits or fails. */
  feed(inboxId: string): void {
    if (this.held.length >= MAX_HELD) {
      this.leftToSweep++;
      return;
    }
    this.held.push(inboxId);
    // A burst is noticed as it starts, not one sample later.
    if (!this.bursting && this.inbox.received - this.sampleStart >= this.burstPerSample) this.bursting = true;
    if (this.bursting || this.releaseScheduled) return;
    // Deliveries stored together (one batch write) are enqueued together.
    this.releaseScheduled = true;
    setImmediate(() => {
      this.releaseScheduled = false;
      if (!this.bursting) this.release(this.held.length);
    });
  }

  onApplicationBootstrap(): void {
    this.sampleStart = this.inbox.received;
    this.sampler = setInterval(() => {
      const count = this.inbox.received;
      this.bursting = count - this.sampleStart >= this.burstPerSample;
      this.sampleStart = count;
      this.release(this.bursting ? this.feedPerSample : this.held.length);
      if (!this.bursting && this.leftToSweep > 0) {
        this.logger.warn(`${this.leftToSweep} deliveries stored during the burst are left to the inbox sweep`);
        this.leftToSweep = 0;
      }
      this.metrics.routesHeld.set(this.held.length);
    }, this.config.webhooks.routeFeed.sampleMs);
    this.sampler.unref();
  }

  /** Before the queue closes: what is still held goes to Redis now rather than to the next start's sweep. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sampler);
    this.release(this.held.length);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([this.releasing, new Promise((done) => (deadline = setTimeout(done, SHUTDOWN_RELEASE_MS)))]);
    clearTimeout(deadline);
  }

  private release(count: number): void {
    const ids = this.held.splice(0, count);
    if (ids.length === 0) return;
    this.releasing = this.releasing.then(() => this.enqueue(ids));
  }

  private async enqueue(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += JOBS_PER_BULK) {
      const chunk = ids.slice(i, i + JOBS_PER_BULK);
      const jobs = chunk.map((id) => {
        const { name, data, jobId } = routeDeliveryJob(id);
        return { name, data, opts: { jobId } };
      });
      await this.queue.addBulk(jobs).catch((err: Error) => this.logger.warn(`${chunk.length} stored deliveries left to the sweep: ${err.message}`));
    }
  }
}
