import { Injectable } from '@nestjs/common';
import type { CrmName } from '../domain/actions.js';
import { ActionRecorderService } from './action-recorder.service.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import type { AdminActor } from '../config/roles.js';

export interface AdminWrite {
  /** What was done, in a sentence for the admin (`mapping 12 removed (appointment APT-1)`). */
  detail: string;
  crm?: CrmName | null;
  projectId?: string | null;
  target?: string | null;
  payload?: Record<string, unknown>;
}

/**
 * The audit of admin writes that create no action of their own (a mapping created, removed or imported, a retry):
 * each is a sync log entry of kind `admin_write`, `succeeded` at once, with `trigger: admin` and the actor's name.
 * Writes that do create actions carry `trigger: 'admin'` and `actor` on those actions instead.
 */
@Injectable()
export class AdminAuditService {
  constructor(private readonly actions: ActionRecorderService) {}

  async record(actor: AdminActor, write: AdminWrite): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      {
        kind: 'admin_write',
        trigger: 'admin',
        actor: actor.name,
        status: 'succeeded',
        crm: write.crm ?? null,
        projectId: write.projectId ?? null,
        target: write.target ?? null,
        detail: `${write.detail} by ${actor.name}`,
        payload: write.payload ?? {},
      },
    ]);
    return entry;
  }
}
