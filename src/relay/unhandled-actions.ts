import { Inject, Injectable } from '@nestjs/common';
import { ALERT_SINK, type AlertSink } from '../alerts/alert-sink.js';
import { noHandlerFor } from '../actions/action-registry.service.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';

/**
 * Actions no handler of this replica runs (recorded by a newer version during a rolling upgrade, or of a kind since
 * retired): failed for good, saying so, and reported like any action that failed for good.
 */
@Injectable()
export class UnhandledActions {
  constructor(
    private readonly syncLog: SyncLogRepository,
    @Inject(ALERT_SINK) private readonly alerts: AlertSink,
  ) {}

  async fail(entry: { id: string; kind: string }): Promise<void> {
    const reason = noHandlerFor(entry.kind);
    await this.syncLog.finish(entry.id, 'failed', null, reason);
    this.alerts.notify('action_failed', { entryId: entry.id, detail: `#${entry.id} ${entry.kind}: ${reason}` });
  }
}
