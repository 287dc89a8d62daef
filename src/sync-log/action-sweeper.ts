import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import { MaintenanceTasks } from '../queues/maintenance.js';
import { ActionQueue } from './action-queue.service.js';
import { SyncLogService } from './sync-log.service.js';

/**
 * Puts actions back on their queue when their job was lost (Redis flushed, or a crash between recording and
 * enqueueing). Runs once when the database is ready, for everything unfinished, and then periodically for
 * entries left untouched longer than `staleAfterMs`. Enqueueing is a no-op for a job that is still there.
 */
@Injectable()
export class ActionSweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger(ActionSweeper.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly syncLog: SyncLogService,
    private readonly actions: ActionQueue,
    tasks: MaintenanceTasks,
  ) {
    tasks.register({ name: 'sweep-actions', everyMs: config.jobs.sweepIntervalMs, run: () => this.sweep(config.jobs.staleAfterMs).then(() => undefined) });
  }

  onApplicationBootstrap(): void {
    void this.database
      .whenReady(24 * 3600_000)
      .then(() => this.sweep(0))
      .catch((err: Error) => this.logger.warn(`start-up sweep failed: ${err.message}`));
  }

  /** Returns how many entries were looked at. */
  async sweep(olderThanMs: number): Promise<number> {
    const entries = await this.syncLog.unfinished(olderThanMs);
    for (const entry of entries) await this.actions.enqueue(entry);
    if (entries.length > 0) this.logger.log(`sweep checked ${entries.length} unfinished action(s)`);
    return entries.length;
  }
}
