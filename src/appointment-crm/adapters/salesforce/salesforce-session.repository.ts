import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';

/** Every statement on `salesforce_session` (migration 1764150000000). */
@Injectable()
export class SalesforceSessionRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(grantKey: string): Promise<string | null> {
    const rows = await this.database.query<Array<{ sealed: string }>>(`SELECT sealed FROM salesforce_session WHERE grant_key = $1`, [grantKey]);
    return rows[0]?.sealed ?? null;
  }

  /** Keeps a new session; `rotated` when its refresh token replaced the one presented. */
  async save(grantKey: string, sealed: string, rotated: boolean): Promise<void> {
    await this.database.query(
      `INSERT INTO salesforce_session (grant_key, sealed, rotations) VALUES ($1, $2, $3)
       ON CONFLICT (grant_key) DO UPDATE SET sealed = EXCLUDED.sealed, refreshes = salesforce_session.refreshes + 1,
         rotations = salesforce_session.rotations + EXCLUDED.rotations, updated_at = now()`,
      [grantKey, sealed, rotated ? 1 : 0],
    );
  }

  async remove(grantKey: string): Promise<void> {
    await this.database.query(`DELETE FROM salesforce_session WHERE grant_key = $1`, [grantKey]);
  }
}
