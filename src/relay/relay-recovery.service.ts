import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { forEachInPages, SWEEP_PAGE_SIZE } from '../database/keyset-pages.js';
import { ActionQueuesService } from '../queues/action-queues.service.js';
import { addUnlessLive } from '../queues/jobs.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import type { MaintenanceTrigger } from '../queues/maintenance-task.decorator.js';
import { QUEUES, routeDeliveryJob, runActionJob } from '../queues/queues.js';
import { ActionRegistryService } from '../actions/action-registry.service.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { InboxRepository } from '../webhooks/inbox.repository.js';
import { UnhandledActions } from './unhandled-actions.js';

export interface RecoveryCounts {
  deliveries: number;
  actions: number;
}

/**
 * The relay's second half: work it enqueued whose job is gone (Redis flushed or restarted without its data, a crash
 * between a job's removal and its row's update). Goes through the unfinished rows the relay marked enqueued, and
 * puts each one's job back unless a live job is there. Runs once when the database is ready, for every such row, then
 * periodically (one replica per period) for the rows untouched for `staleAfterMs`. A job of a crashed replica that is
 * still in Redis needs nothing here: BullMQ's stalled-job check hands it to another worker.
 */
@Injectable()
export class RelayRecoveryService {
  private readonly logger = new Logger(RelayRecoveryService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inbox: InboxRepository,
    private readonly syncLog: SyncLogRepository,
    private readonly registry: ActionRegistryService,
    @InjectQueue(QUEUES.webhooks) private readonly routeQueue: Queue,
    private readonly actionQueues: ActionQueuesService,
    private readonly unhandledActions: UnhandledActions,
  ) {}

  /** At start every row enqueued and unfinished; then, periodically, those untouched for `staleAfterMs`. */
  @MaintenanceTask('relay-recovery', { every: (config) => config.jobs.sweepIntervalMs, atStartup: true })
  async onSchedule(trigger: MaintenanceTrigger): Promise<void> {
    await this.recover(trigger === 'startup' ? 0 : this.config.jobs.staleAfterMs);
  }

  /** Re-enqueues the lost jobs of rows enqueued at least `olderThanMs` ago; returns how many rows were looked at. */
  async recover(olderThanMs: number, pageSize = SWEEP_PAGE_SIZE, queuedOnly = false): Promise<RecoveryCounts> {
    const deliveries = await forEachInPages<string>(
      pageSize,
      (after) => this.inbox.staleEnqueued(olderThanMs, pageSize, after),
      async (id) => {
        const { name, data, jobId } = routeDeliveryJob(id);
        await addUnlessLive(this.routeQueue, name, data, jobId);
        await this.inbox.markEnqueued(id);
      },
    );
    const actions = await forEachInPages<SyncLogEntry>(
      pageSize,
      (after) => this.syncLog.staleEnqueued(olderThanMs, pageSize, after?.id, queuedOnly ? ['queued'] : undefined),
      (entry) => this.recoverAction(entry),
    );
    if (deliveries + actions > 0) this.logger.log(`recovery checked ${deliveries} unrouted delivery(ies) and ${actions} unfinished action(s)`);
    return { deliveries, actions };
  }

  private async recoverAction(entry: SyncLogEntry): Promise<void> {
    const queue = this.registry.queueFor(entry.kind, entry.crm);
    if (!queue) return this.unhandledActions.fail(entry);
    const { name, data, jobId } = runActionJob(entry.id, entry.retryBase);
    await addUnlessLive(this.actionQueues.get(queue), name, data, jobId);
  }
}
