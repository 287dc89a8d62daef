import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { MaintenanceTasksService } from '../queues/maintenance.service.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { RelayRecoveryService } from './relay-recovery.service.js';

/** How often the marker is looked at: a lost Redis is noticed within this. */
const WATCH_MS = 1_000;

/**
 * Redis that lost its data (restarted without it, flushed) has lost every job and the schedules of the periodic
 * tasks, the relay's recovery sweep among them. A marker key says so: the first replica to find it gone (SET NX)
 * sets the schedules again and puts back the job of every queued row and unrouted delivery at once, instead of the
 * sweep a minute or more later. A running row's job is left to its run, which hands the row to the relay if it must
 * run again (a row's run going on elsewhere must not be started twice).
 */
@Injectable()
export class RedisLossWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RedisLossWatcher.name);
  private timer?: NodeJS.Timeout;
  private checking = false;
  /** Whether this process has looked once: a marker missing at its start is the start-up recovery's concern. */
  private looked = false;
  /**
   * The values of the SET NXs whose answer never came (the client's one-second time-out under load, a dropped
   * connection): Redis may still have run one, so a marker found later with one of them was set by this replica after
   * a loss that nobody has handled yet. Without this, the time-out hid the loss for good (the marker was back).
   */
  private readonly unanswered = new Set<string>();

  constructor(
    private readonly redis: SharedRedisService,
    private readonly tasks: MaintenanceTasksService,
    private readonly recovery: RelayRecoveryService,
  ) {}

  /**
   * The first look sets the marker before the replica serves: a loss in the first second after start-up (before an
   * interval's first look) would else be taken for the state at start and wait for the relay's periodic recovery.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), WATCH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Answers whether this replica found Redis emptied and recovered. */
  async check(): Promise<boolean> {
    if (this.checking || !this.redis.reachable) return false;
    this.checking = true;
    const marker = this.redis.key('redis-marker');
    const value = `${new Date().toISOString()} ${randomUUID()}`;
    let recovering = false;
    try {
      const setByThisLook = await this.redis.client.set(marker, value, 'NX').catch((err: Error) => {
        this.unanswered.add(value);
        throw err;
      });
      const setBefore = setByThisLook !== 'OK' && this.unanswered.size > 0 && this.unanswered.has((await this.redis.client.get(marker)) ?? '');
      this.unanswered.clear();
      const first = !this.looked;
      this.looked = true;
      if ((setByThisLook !== 'OK' && !setBefore) || first) return false;
      recovering = true;
      this.logger.warn('Redis lost its data (restarted empty or flushed): the periodic tasks are scheduled again and the jobs of unfinished work put back');
      await this.tasks.schedule();
      const { deliveries, actions } = await this.recovery.recover(0, undefined, true);
      this.logger.log(`after Redis lost its data: ${deliveries} delivery(ies) and ${actions} queued action(s) put back`);
      return true;
    } catch (err) {
      // Redis or Postgres away: the marker is taken away again, so that the next look (on any replica) recovers.
      this.logger.warn(`Redis data check failed: ${(err as Error).message}`);
      if (recovering) await this.redis.client.del(marker).catch(() => undefined);
      return false;
    } finally {
      this.checking = false;
    }
  }
}
