import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { MaintenanceTasks } from '../queues/maintenance.service.js';
import { ActionRecorder } from '../sync-log/action-recorder.service.js';
import type { SyncTrigger } from '../domain/actions.js';
import type { SyncLogEntry } from '../sync-log/sync-log.entity.js';

/** Starts reconciliation runs: on the schedule (a BullMQ job scheduler, once per period across replicas) or now. */
@Injectable()
export class ReconcileService {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly actions: ActionRecorder,
    private readonly connections: ConnectionsService,
    tasks: MaintenanceTasks,
  ) {
    tasks.register({ name: 'reconcile', everyMs: config.reconcileIntervalSeconds * 1000, run: () => this.onSchedule() });
  }

  /** Whether there is a service to reconcile against (a daemon may run before anyone connected it). */
  async serviceConnected(): Promise<boolean> {
    return (await this.connections.get('service')) !== null;
  }

  /** The schedule's run; skipped while the service is not connected, so no run waits and fails for want of it. */
  private async onSchedule(): Promise<void> {
    if (await this.serviceConnected()) await this.start('schedule');
  }

  /** A run still waiting to start is joined rather than doubled (its coalesce key). */
  async start(trigger: SyncTrigger, actor?: string): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      { kind: 'reconcile', trigger, crm: null, projectId: null, target: null, coalesceKey: 'reconcile', ...(actor ? { actor } : {}) },
    ]);
    return entry;
  }
}
