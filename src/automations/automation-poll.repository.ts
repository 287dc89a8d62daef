import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { AutomationCrm } from '../crm-settings/automation-settings.js';

export interface PollState {
  crm: AutomationCrm;
  cursor: string | null;
  pageToken: string | null;
  /** The start an admin gave the reads: a read's look-back never goes before it. */
  readFrom: string | null;
  lastRunAt: Date | null;
  lastError: string | null;
  lastEntryId: string | null;
}

/** Where a read of the changes starts: the change time read up to, and the page of a listing under way. */
export interface Position {
  cursor: string | null;
  pageToken: string | null;
}

const COLUMNS = `crm, cursor, page_token AS "pageToken", read_from AS "readFrom", last_run_at AS "lastRunAt", last_error AS "lastError", last_entry_id::text AS "lastEntryId"`;

/** Every statement on `automation_poll`. */
@Injectable()
export class AutomationPollRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(crm: AutomationCrm): Promise<PollState> {
    const [row] = await this.database.query<PollState[]>(`SELECT ${COLUMNS} FROM automation_poll WHERE crm = $1`, [crm]);
    return row ?? { crm, cursor: null, pageToken: null, readFrom: null, lastRunAt: null, lastError: null, lastEntryId: null };
  }

  /**
   * Where the next read starts: saved once a page's actions are recorded, so a cut-off read resumes after them. Saved
   * only while the position is still `from` (where the read found it): false when a save of the settings moved it
   * meanwhile (a new start, another module), and the read must stop.
   */
  async savePosition(crm: AutomationCrm, from: Position, to: Position): Promise<boolean> {
    const rows = await this.database.query<unknown[]>(
      `INSERT INTO automation_poll (crm, cursor, page_token, updated_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (crm) DO UPDATE SET cursor = EXCLUDED.cursor, page_token = EXCLUDED.page_token, updated_at = now()
       WHERE automation_poll.cursor IS NOT DISTINCT FROM $4 AND automation_poll.page_token IS NOT DISTINCT FROM $5
       RETURNING crm`,
      [crm, to.cursor, to.pageToken, from.cursor, from.pageToken],
    );
    return rows.length > 0;
  }

  /** The next read starts at `cursor`, whatever was read before (a listing under way is dropped). */
  async restartAt(crm: AutomationCrm, cursor: string): Promise<void> {
    await this.database.query(
      `INSERT INTO automation_poll (crm, cursor, page_token, read_from, updated_at) VALUES ($1, $2, NULL, $2, now())
       ON CONFLICT (crm) DO UPDATE SET cursor = EXCLUDED.cursor, page_token = NULL, read_from = EXCLUDED.read_from, updated_at = now()`,
      [crm, cursor],
    );
  }

  /** The first read starts at `cursor` unless the CRM was read (or given a start) before. */
  async startAtUnlessRead(crm: AutomationCrm, cursor: string): Promise<void> {
    await this.database.query(
      `INSERT INTO automation_poll (crm, cursor, page_token, read_from, updated_at) VALUES ($1, $2, NULL, $2, now())
       ON CONFLICT (crm) DO UPDATE SET cursor = EXCLUDED.cursor, read_from = EXCLUDED.read_from, updated_at = now()
       WHERE automation_poll.cursor IS NULL AND automation_poll.page_token IS NULL`,
      [crm, cursor],
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
