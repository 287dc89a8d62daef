import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
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
    tasks: MaintenanceTasks,
  ) {
    tasks.register({ name: 'reconcile', everyMs: config.reconcileIntervalSeconds * 1000, run: () => this.start('schedule').then(() => undefined) });
  }

  /** A run still waiting to start is joined rather than doubled (its coalesce key). */
  async start(trigger: SyncTrigger, actor?: string): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      { kind: 'reconcile', trigger, crm: null, projectId: null, target: null, coalesceKey: 'reconcile', ...(actor ? { actor } : {}) },
    ]);
    return entry;
  }
}
