import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { addUnlessLive } from '../queues/jobs.js';
import { actionJobId, JOB_NAMES, QUEUES, type ActionQueueName, type RunActionJob } from '../queues/queues.js';
import { ActionRegistry } from './action-registry.js';
import type { NewAction } from './action.types.js';
import type { SyncLogEntry } from './sync-log.entity.js';
import { SyncLogService } from './sync-log.service.js';

/** Records actions in the sync log and puts their jobs on the right queue. */
@Injectable()
export class ActionQueue {
  private readonly queues: Record<ActionQueueName, Queue>;

  constructor(
    private readonly syncLog: SyncLogService,
    private readonly registry: ActionRegistry,
    @InjectQueue(QUEUES.service) service: Queue,
    @InjectQueue(QUEUES.appointmentCrm) appointmentCrm: Queue,
    @InjectQueue(QUEUES.recordCrm) recordCrm: Queue,
  ) {
    this.queues = { [QUEUES.service]: service, [QUEUES.appointmentCrm]: appointmentCrm, [QUEUES.recordCrm]: recordCrm };
  }

  /** Records each action and enqueues the ones created `queued`. Returns the entries (existing ones for duplicates). */
  async submit(actions: NewAction[]): Promise<SyncLogEntry[]> {
    const recorded = await this.record(actions);
    await this.enqueueCreated(recorded);
    return recorded.map((r) => r.entry);
  }

  /**
   * Records without enqueueing: inside a caller's transaction (`manager`), or marking a routed delivery
   * (`routedInboxId`). Enqueue the result with `enqueueCreated` once that is committed.
   */
  async record(
    actions: NewAction[],
    options: { manager?: EntityManager; routedInboxId?: string } = {},
  ): Promise<Array<{ entry: SyncLogEntry; created: boolean; delayMs?: number }>> {
    const effective = actions.map((action): NewAction => {
      const unhandled = (action.status ?? 'queued') === 'queued' && !this.registry.handlerFor(action.kind, action.crm);
      return unhandled ? { ...action, status: 'failed', error: `no handler for action kind ${action.kind} (is its CRM configured?)` } : action;
    });
    const recorded = await this.syncLog.record(effective, options);
    return recorded.map((r, i) => ({ ...r, delayMs: actions[i].delayMs }));
  }

  async enqueueCreated(recorded: Array<{ entry: SyncLogEntry; created: boolean; delayMs?: number }>): Promise<void> {
    for (const { entry, created, delayMs } of recorded) {
      if (created && entry.status === 'queued') await this.enqueue(entry, delayMs);
    }
  }

  /**
   * Puts the entry's job on its queue unless a live job for it is there already. A finished job under the same id
   * (the entry was retried by an admin, or Redis lost track) is replaced.
   */
  async enqueue(entry: SyncLogEntry, delayMs = 0): Promise<void> {
    const queueName = this.registry.queueFor(entry.kind, entry.crm);
    if (!queueName) {
      await this.syncLog.finish(entry.id, 'failed', null, `no handler for action kind ${entry.kind} (is its CRM configured?)`);
      return;
    }
    const data: RunActionJob = { entryId: entry.id };
    await addUnlessLive(this.queues[queueName], JOB_NAMES.runAction, data, actionJobId(entry.id, entry.retryBase), { delay: Math.max(0, delayMs) });
  }
}
