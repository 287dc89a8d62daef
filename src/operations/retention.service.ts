import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { InboxRepository } from '../webhooks/inbox.repository.js';
import { AlertRepository } from '../alerts/alert.repository.js';

export interface RetentionCounts {
  syncLog: number;
  inbox: number;
  alerts: number;
  /** Delete statements run (each at most `batchSize` rows, in a transaction of its own). */
  statements: number;
}

const DAY_MS = 24 * 3600_000;

/**
 * Deletes old finished rows, daily (one run per day across replicas: a maintenance task). Only finished work goes:
 * sync log entries succeeded, failed or skipped before `SYNC_LOG_RETENTION_DAYS` and no parent of an unfinished
 * entry; deliveries routed, ignored, failed or duplicate before `INBOX_RETENTION_DAYS` and no delivery of an
 * unfinished entry; alerts older than the sync log's retention. Queued or running entries and `received`
 * deliveries are never touched. Rows go in small batches (`FOR UPDATE SKIP LOCKED`, one short statement each), so
 * no lock is held long and rows another transaction holds are left for the next run. (`parent_id` and `inbox_id`
 * carry no foreign keys: a kept entry may name a deleted parent or delivery.)
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly syncLog: SyncLogRepository,
    private readonly inbox: InboxRepository,
    private readonly alerts: AlertRepository,
  ) {}

  @MaintenanceTask('retention', { every: (config) => config.retention.everyMs })
  async onSchedule(): Promise<void> {
    await this.run();
  }

  async run(now = new Date()): Promise<RetentionCounts> {
    const { syncLogDays, inboxDays, batchSize } = this.config.retention;
    const syncLogCutoff = new Date(now.getTime() - syncLogDays * DAY_MS);
    const inboxCutoff = new Date(now.getTime() - inboxDays * DAY_MS);
    const counts: RetentionCounts = { syncLog: 0, inbox: 0, alerts: 0, statements: 0 };
    counts.syncLog = await this.inBatches(counts, () => this.syncLog.deleteFinishedBefore(syncLogCutoff, batchSize), batchSize);
    counts.inbox = await this.inBatches(counts, () => this.inbox.deleteFinishedBefore(inboxCutoff, batchSize), batchSize);
    counts.alerts = await this.inBatches(counts, () => this.alerts.deleteOlderThan(syncLogCutoff, batchSize), batchSize);
    if (counts.syncLog + counts.inbox + counts.alerts > 0) {
      this.logger.log(
        `retention: deleted ${counts.syncLog} sync log entries (older than ${syncLogDays} days), ${counts.inbox} deliveries ` +
          `(older than ${inboxDays} days), ${counts.alerts} alerts`,
      );
    }
    return counts;
  }

  /** Runs `batch` until it deletes fewer than a full batch; returns the rows deleted. */
  private async inBatches(counts: RetentionCounts, batch: () => Promise<number>, batchSize: number): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await batch();
      counts.statements++;
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
