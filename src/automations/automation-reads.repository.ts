import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { AutomationCrm } from '../crm-settings/automation-settings.js';

export interface ReadCounts {
  crm: AutomationCrm;
  recordsRead: number;
  qualifying: number;
}

/**
 * Every statement on `automation_read_hour`: the records each CRM's reads saw and how many of them qualified, per UTC
 * hour. The funnel's first two steps; the schedule's reads record no sync log entry of their own.
 */
@Injectable()
export class AutomationReadsRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Adds one page's counts to the current hour's. */
  async count(crm: AutomationCrm, recordsRead: number, qualifying: number): Promise<void> {
    if (recordsRead === 0 && qualifying === 0) return;
    await this.database.query(
      `INSERT INTO automation_read_hour (crm, hour, records_read, qualifying) VALUES ($1, date_trunc('hour', now()), $2, $3)
       ON CONFLICT (crm, hour) DO UPDATE SET records_read = automation_read_hour.records_read + EXCLUDED.records_read,
         qualifying = automation_read_hour.qualifying + EXCLUDED.qualifying`,
      [crm, recordsRead, qualifying],
    );
  }

  /** Each CRM's counts from the hour `since` falls in. */
  async countsSince(since: Date): Promise<ReadCounts[]> {
    return this.database.query<ReadCounts[]>(
      `SELECT crm, sum(records_read)::float8 AS "recordsRead", sum(qualifying)::float8 AS "qualifying"
         FROM automation_read_hour WHERE hour >= date_trunc('hour', $1::timestamptz) GROUP BY crm`,
      [since],
    );
  }
}
