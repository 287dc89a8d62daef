import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { forEachInPages, SWEEP_PAGE_SIZE } from '../database/keyset-pages.js';
import { MaintenanceTasks } from '../queues/maintenance.js';
import { InboxService } from './inbox.service.js';

/**
 * Re-enqueues stored deliveries that were never routed (Redis lost their job, or the process died between the
 * answer and the enqueue): once when the database is ready, for all of them, then periodically.
 */
@Injectable()
export class InboxSweeper {
  private readonly logger = new Logger(InboxSweeper.name);

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly inbox: InboxService,
    tasks: MaintenanceTasks,
  ) {
    tasks.register({
      name: 'sweep-inbox',
      everyMs: config.jobs.sweepIntervalMs,
      atStartup: true,
      run: (trigger) => this.sweep(trigger === 'startup' ? 0 : config.jobs.staleAfterMs).then(() => undefined),
    });
  }

  /** Goes through every unrouted delivery, page by page; returns how many were looked at. */
  async sweep(olderThanMs: number, pageSize = SWEEP_PAGE_SIZE): Promise<number> {
    const swept = await forEachInPages<string>(
      pageSize,
      (after) => this.inbox.unrouted(olderThanMs, pageSize, after),
      (id) => this.inbox.enqueue(id),
    );
    if (swept > 0) this.logger.log(`sweep re-enqueued ${swept} unrouted deliveries`);
    return swept;
  }
}
