import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** Where a source of the revenue check goes on from: a changes pass from `since`, a full pass after `afterKey`. */
export interface CheckPosition {
  since: Date | null;
  afterKey: string | null;
}

/** Every statement on `revenue_check_position`. */
@Injectable()
export class CheckPositionRepository {
  constructor(private readonly database: DatabaseService) {}

  async get(source: string): Promise<CheckPosition> {
    const rows = await this.database.query<CheckPosition[]>(`SELECT since, after_key AS "afterKey" FROM revenue_check_position WHERE source = $1`, [source]);
    return rows[0] ?? { since: null, afterKey: null };
  }

  async save(source: string, position: CheckPosition): Promise<void> {
    await this.database.query(
      `INSERT INTO revenue_check_position (source, since, after_key) VALUES ($1, $2, $3)
       ON CONFLICT (source) DO UPDATE SET since = EXCLUDED.since, after_key = EXCLUDED.after_key, updated_at = now()`,
      [source, position.since, position.afterKey],
    );
  }
}
