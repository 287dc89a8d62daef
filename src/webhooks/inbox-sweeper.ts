import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MaintenanceTasks } from '../queues/maintenance.js';
import { InboxService } from './inbox.service.js';

/** Unrouted deliveries read per query; a sweep goes through all of them, page by page. */
const PAGE = 1000;

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

  async sweep(olderThanMs: number, pageSize = PAGE): Promise<number> {
    let swept = 0;
    let page: string[] = [];
    do {
      page = await this.inbox.unrouted(olderThanMs, pageSize, page.at(-1));
      for (const id of page) await this.inbox.enqueue(id);
      swept += page.length;
    } while (page.length === pageSize);
    if (swept > 0) this.logger.log(`sweep re-enqueued ${swept} unrouted deliveries`);
    return swept;
  }
}
