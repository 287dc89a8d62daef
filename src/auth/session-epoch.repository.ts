import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/**
 * Every statement on `admin_session_epoch`: the session epoch of each token name (no row: 0). Every session cookie
 * carries the epoch it was made in; signing out moves the name on to the next one, so every earlier cookie of that
 * name is refused by every replica from the next request on. Read on each request made with a cookie: one
 * primary-key lookup.
 */
@Injectable()
export class SessionEpochRepository {
  constructor(private readonly database: DatabaseService) {}

  async current(name: string): Promise<string> {
    const rows = await this.database.query<Array<{ epoch: string }>>(`SELECT epoch::text AS epoch FROM admin_session_epoch WHERE name = $1`, [name]);
    return rows[0]?.epoch ?? '0';
  }

  /** Ends every session of `name` made so far. */
  async advance(name: string): Promise<void> {
    await this.database.query(
      `INSERT INTO admin_session_epoch (name, epoch) VALUES ($1, 1)
       ON CONFLICT (name) DO UPDATE SET epoch = admin_session_epoch.epoch + 1, changed_at = now()`,
      [name],
    );
  }
}
