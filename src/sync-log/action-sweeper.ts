import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { forEachInPages, SWEEP_PAGE_SIZE } from '../database/keyset-pages.js';
import { MaintenanceTasks } from '../queues/maintenance.js';
import { ActionQueue } from './action-queue.service.js';
import type { SyncLogEntry } from './sync-log.entity.js';
import { SyncLogService } from './sync-log.service.js';

/**
 * Puts actions back on their queue when their job was lost (Redis flushed, or a crash between recording and
 * enqueueing). Runs once when the database is ready, for everything unfinished, and then periodically for
 * entries left untouched longer than `staleAfterMs`. Enqueueing is a no-op for a job that is still there.
 */
@Injectable()
export class ActionSweeper {
  private readonly logger = new Logger(ActionSweeper.name);

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly syncLog: SyncLogService,
    private readonly actions: ActionQueue,
    tasks: MaintenanceTasks,
  ) {
    tasks.register({
      name: 'sweep-actions',
      everyMs: config.jobs.sweepIntervalMs,
      atStartup: true,
      run: (trigger) => this.sweep(trigger === 'startup' ? 0 : config.jobs.staleAfterMs).then(() => undefined),
    });
  }

  /** Goes through every unfinished entry, page by page; returns how many were looked at. */
  async sweep(olderThanMs: number, pageSize = SWEEP_PAGE_SIZE): Promise<number> {
    const checked = await forEachInPages<SyncLogEntry>(
      pageSize,
      (after) => this.syncLog.unfinished(olderThanMs, pageSize, after?.id),
      (entry) => this.actions.enqueue(entry),
    );
    if (checked > 0) this.logger.log(`sweep checked ${checked} unfinished action(s)`);
    return checked;
  }
}
