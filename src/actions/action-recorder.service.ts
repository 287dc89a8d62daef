import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RelaySignalService } from '../queues/relay-signal.service.js';
import { ActionRegistryService, noHandlerFor } from './action-registry.service.js';
import type { NewAction } from './action.types.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';

export interface RecordedAction {
  entry: SyncLogEntry;
  /** False when the action existed already (its dedupe key was used, or a queued action held its coalesce key). */
  created: boolean;
}

/**
 * Records actions in the sync log. It never touches a queue: the relay puts the queued entries on theirs, and is
 * told here that there is something to relay.
 */
@Injectable()
export class ActionRecorderService {
  constructor(
    private readonly syncLog: SyncLogRepository,
    private readonly registry: ActionRegistryService,
    private readonly relay: RelaySignalService,
  ) {}

  /**
   * Records actions, marking a routed delivery (`routedInboxId`, with its project `routedProjectId`) in the same statement. Inside a caller's
   * transaction (`manager`), the relay is not told (it could not see the rows yet): call `committed()` after it.
   */
  async record(
    actions: NewAction[],
    options: { manager?: EntityManager; routedInboxId?: string; routedProjectId?: string | null } = {},
  ): Promise<RecordedAction[]> {
    const effective = actions.map((action): NewAction => {
      const unhandled = (action.status ?? 'queued') === 'queued' && !this.registry.handlerFor(action.kind, action.crm);
      return unhandled ? { ...action, status: 'failed', error: noHandlerFor(action.kind) } : action;
    });
    const recorded = await this.syncLog.record(effective, options);
    if (!options.manager) this.committed(recorded);
    return recorded;
  }

  /** Tells the relay about the queued actions a committed transaction created. */
  committed(recorded: RecordedAction[]): void {
    if (recorded.some((r) => r.created && r.entry.status === 'queued')) this.relay.workWritten();
  }

  /**
   * A failed entry queued to run again (the admin's retry), with a fresh budget of tries; `attempts` keeps counting
   * every run. Null when the entry is not failed.
   */
  async retry(id: string): Promise<SyncLogEntry | null> {
    const entry = await this.syncLog.requeue(id);
    if (entry) this.relay.workWritten();
    return entry;
  }
}
