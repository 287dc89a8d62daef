import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseUnavailableError } from '../database/database.errors.js';
import { MetricsService } from '../observability/metrics.service.js';
import { ActionQueuesService } from '../queues/action-queues.service.js';
import { QUEUES, routeDeliveryJob, runActionJob, type ActionQueueName } from '../queues/queues.js';
import { RelaySignalService, type RelayListener } from '../queues/relay-signal.service.js';
import { ActionRegistryService } from '../actions/action-registry.service.js';
import type { UnqueuedEntry } from '../sync-log/sync-log.repository.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { InboxRepository } from '../webhooks/inbox.repository.js';
import { UnhandledActions } from './unhandled-actions.js';

/** Rows claimed, and jobs added, per round trip. */
const CLAIM_BATCH = 500;
/** A shutdown waits this long for a relay pass under way; what it leaves is relayed by the next pass of any replica. */
const SHUTDOWN_WAIT_MS = 5_000;
/** An enqueue that hangs (Redis unreachable) is given up after this, releasing the claimed rows for the next pass. */
const ENQUEUE_TIMEOUT_MS = 10_000;

type Work = 'deliveries' | 'actions';

/**
 * The one path from stored work to the queues (a transactional outbox). Stored deliveries and queued actions are
 * written to Postgres by whoever creates them; the relay claims the rows that have no job yet (FOR UPDATE SKIP
 * LOCKED: one replica per row), adds their jobs in bulk and marks them enqueued, in one transaction. It runs when
 * this process wrote something, and on a timer for rows another replica wrote and could not relay (it died).
 *
 * During a burst of webhooks (`burstPerSecond` or more) it relays only `burstFeedPerSecond` deliveries: a route job
 * and its routing cost the process more than storing the delivery does, and a webhook answered late is timed out
 * and sent again by the service, which adds to the load. The rest wait safely in Postgres until the burst ends.
 * Jobs whose rows were enqueued but whose jobs were lost (a flushed Redis) are the concern of `RelayRecoveryService`.
 */
@Injectable()
export class RelayService implements RelayListener, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RelayService.name);
  private readonly burstPerSample: number;
  private readonly feedPerSample: number;
  private readonly wanted = new Set<Work>();
  private scheduled = false;
  private passing: Promise<void> | null = null;
  private stopped = false;
  /** Deliveries stored since start, and their count when the current sample began. */
  private stored = 0;
  private sampleStart = 0;
  private bursting = false;
  private fedThisSample = 0;
  private timers: NodeJS.Timeout[] = [];
  private lastFailure = '';

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inbox: InboxRepository,
    private readonly syncLog: SyncLogRepository,
    private readonly registry: ActionRegistryService,
    private readonly metrics: MetricsService,
    signal: RelaySignalService,
    @InjectQueue(QUEUES.webhooks) private readonly routeQueue: Queue,
    private readonly actionQueues: ActionQueuesService,
    private readonly unhandledActions: UnhandledActions,
  ) {
    const { burstPerSecond, burstFeedPerSecond, sampleMs } = config.relay;
    this.burstPerSample = Math.max(1, Math.round((burstPerSecond * sampleMs) / 1000));
    this.feedPerSample = Math.max(1, Math.round((burstFeedPerSecond * sampleMs) / 1000));
    signal.listen(this);
  }

  deliveriesStored(count: number, routable: boolean): void {
    this.stored += count;
    // A burst is noticed as it starts, not one sample later.
    if (!this.bursting && this.stored - this.sampleStart >= this.burstPerSample) this.setBursting(true);
    if (routable && !this.bursting) this.request('deliveries');
  }

  actionsWritten(): void {
    this.request('actions');
  }

  onApplicationBootstrap(): void {
    const { sampleMs, pollMs } = this.config.relay;
    this.timers.push(
      setInterval(() => {
        this.setBursting(this.stored - this.sampleStart >= this.burstPerSample);
        this.sampleStart = this.stored;
        this.fedThisSample = 0;
        this.request('deliveries'); // while bursting, the sample's trickle; after it, everything that waited
      }, sampleMs),
      setInterval(() => this.request('actions'), pollMs),
    );
    this.timers.forEach((t) => t.unref());
    this.request('deliveries');
    this.request('actions');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([this.passing, new Promise((done) => (deadline = setTimeout(done, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(deadline);
  }

  private request(work: Work): void {
    this.wanted.add(work);
    if (this.scheduled || this.passing || this.stopped) return;
    // Wakes from one batch of writes are served by one pass.
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.passing && !this.stopped) void this.pass();
    });
  }

  private pass(): Promise<void> {
    this.passing = (async () => {
      try {
        while (this.wanted.size > 0 && !this.stopped) {
          const work = [...this.wanted];
          this.wanted.clear();
          if (work.includes('deliveries')) await this.relayDeliveries();
          if (work.includes('actions')) await this.relayActions();
        }
        this.lastFailure = '';
      } catch (err) {
        // Postgres not ready (yet): readiness says so, and the next tick tries again.
        if (!(err instanceof DatabaseUnavailableError)) this.warnOnce(`relay pass failed, retried on the next tick: ${(err as Error).message}`);
      } finally {
        this.passing = null;
      }
    })();
    return this.passing;
  }

  private async relayDeliveries(): Promise<void> {
    for (;;) {
      const budget = this.bursting ? this.feedPerSample - this.fedThisSample : CLAIM_BATCH;
      if (budget <= 0) return;
      const limit = Math.min(CLAIM_BATCH, budget);
      const claimed = await this.inbox.claimUnqueued(limit, async (ids) => {
        const jobs = ids.map((id) => {
          const { name, data, jobId } = routeDeliveryJob(id);
          return { name, data, opts: { jobId } };
        });
        await this.withTimeout(this.routeQueue.addBulk(jobs));
      });
      this.fedThisSample += claimed;
      this.metrics.relayed.inc({ work: 'delivery' }, claimed);
      if (claimed < limit) return;
    }
  }

  private async relayActions(): Promise<void> {
    const unhandled: UnqueuedEntry[] = [];
    let claimed: number;
    do {
      claimed = await this.syncLog.claimUnqueued(CLAIM_BATCH, async (entries) => {
        const byQueue = new Map<ActionQueueName, UnqueuedEntry[]>();
        for (const entry of entries) {
          const queue = this.registry.queueFor(entry.kind, entry.crm);
          if (!queue) unhandled.push(entry);
          else byQueue.set(queue, [...(byQueue.get(queue) ?? []), entry]);
        }
        await this.withTimeout(
          Promise.all(
            [...byQueue].map(([queue, batch]) =>
              this.actionQueues.get(queue).addBulk(
                batch.map((entry) => {
                  const { name, data, jobId } = runActionJob(entry.id, entry.retryBase);
                  return { name, data, opts: { jobId, delay: entry.delayMs } };
                }),
              ),
            ),
          ),
        );
      });
      this.metrics.relayed.inc({ work: 'action' }, claimed);
    } while (claimed === CLAIM_BATCH);
    // Recorded while a handler was there (or by a replica that has one), but none runs here: say so on the entry.
    for (const entry of unhandled) await this.unhandledActions.fail(entry);
  }

  private setBursting(bursting: boolean): void {
    this.bursting = bursting;
    this.metrics.relayBursting.set(bursting ? 1 : 0);
  }

  private async withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the queue did not answer within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private warnOnce(message: string): void {
    if (message !== this.lastFailure) this.logger.warn(message);
    this.lastFailure = message;
  }
}
