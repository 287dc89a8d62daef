import { Injectable } from '@nestjs/common';
import { ConnectionsService } from '../connections/connections.service.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import type { ReconcileScope, SyncTrigger } from '../domain/actions.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';

/**
 * Starts reconciliation passes: on the schedule (BullMQ job schedulers, once per period across replicas) or now. A
 * changes pass every RECONCILE_INTERVAL_SECONDS, a full pass every RECONCILE_FULL_INTERVAL_SECONDS; an interval of
 * 0 for the changes pass turns both off.
 */
@Injectable()
export class ReconcileService {
  constructor(
    private readonly actions: ActionRecorderService,
    private readonly connections: ConnectionsService,
    private readonly syncLog: SyncLogRepository,
  ) {}

  @MaintenanceTask('reconcile', { every: (config) => config.reconcileIntervalSeconds * 1000 })
  async changesOnSchedule(): Promise<void> {
    await this.onSchedule('changes');
  }

  /** Not scheduled while the changes pass is not (RECONCILE_INTERVAL_SECONDS=0 turns both off). */
  @MaintenanceTask('reconcile-full', { every: (config) => (config.reconcileIntervalSeconds > 0 ? config.reconcileFullIntervalSeconds * 1000 : 0) })
  async fullOnSchedule(): Promise<void> {
    await this.onSchedule('full');
  }

  /** Whether there is a service to reconcile against (a daemon may run before anyone connected it). */
  async serviceConnected(): Promise<boolean> {
    return (await this.connections.get('service')) !== null;
  }

  /**
   * The schedule's pass; skipped while the service is not connected, so no pass waits and fails for want of it. A
   * full pass still unfinished (running, waiting for a retry, or killed and waiting to be resumed) is not doubled.
   */
  private async onSchedule(scope: ReconcileScope): Promise<void> {
    if (!(await this.serviceConnected())) return;
    if (scope === 'full' && (await this.syncLog.hasUnfinishedFullReconcile())) return;
    await this.start('schedule', scope);
  }

  /** A pass of this scope still waiting to start is joined rather than doubled (its coalesce key). */
  async start(trigger: SyncTrigger, scope: ReconcileScope = 'changes', actor?: string): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      {
        kind: 'reconcile',
        trigger,
        crm: null,
        projectId: null,
        target: null,
        payload: { scope },
        coalesceKey: scope === 'full' ? 'reconcile:full' : 'reconcile',
        ...(actor ? { actor } : {}),
      },
    ]);
    return entry;
  }
}
