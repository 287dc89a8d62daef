import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { AutomationCrm } from '../automation-settings/automation-settings.js';

export interface PollState {
  crm: AutomationCrm;
  cursor: string | null;
  pageToken: string | null;
  lastRunAt: Date | null;
  lastError: string | null;
  lastEntryId: string | null;
}

const COLUMNS = `crm, cursor, page_token AS "pageToken", last_run_at AS "lastRunAt", last_error AS "lastError", last_entry_id::text AS "lastEntryId"`;

/** Every statement on `automation_poll`. */
@Injectable()
export class AutomationPollRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(crm: AutomationCrm): Promise<PollState> {
    const [row] = await this.database.query<PollState[]>(`SELECT ${COLUMNS} FROM automation_poll WHERE crm = $1`, [crm]);
    return row ?? { crm, cursor: null, pageToken: null, lastRunAt: null, lastError: null, lastEntryId: null };
  }

  /** Where the next read starts: saved once a page's actions are recorded, so a cut-off read resumes after them. */
  async savePosition(crm: AutomationCrm, cursor: string | null, pageToken: string | null): Promise<void> {
    await this.database.query(
      `INSERT INTO automation_poll (crm, cursor, page_token, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (crm) DO UPDATE SET cursor = EXCLUDED.cursor, page_token = EXCLUDED.page_token, updated_at = now()`,
      [crm, cursor, pageToken],
    );
  }

  /** A read ended (error null: it went through); `entryId` when it ran as a sync log entry (asked for now). */
  async finishRun(crm: AutomationCrm, entryId: string | null, error: string | null): Promise<void> {
    await this.database.query(
      `INSERT INTO automation_poll (crm, last_run_at, last_error, last_entry_id, updated_at) VALUES ($1, now(), $2, $3, now())
       ON CONFLICT (crm) DO UPDATE SET last_run_at = now(), last_error = EXCLUDED.last_error,
              last_entry_id = COALESCE(EXCLUDED.last_entry_id, automation_poll.last_entry_id), updated_at = now()`,
      [crm, error, entryId],
    );
  }
}
