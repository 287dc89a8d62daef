import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** The statement an operator runs to have a new first-start token made (named in the daemon's log lines). */
export const RESET_CREDENTIALS_STATEMENT = 'DELETE FROM admin_credential';

/** Every statement on `admin_credential`: the sha256 (hex) of each admin token the daemon made, and its MAC. */
@Injectable()
export class AdminCredentialRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Stores the hash unless the name has one already; true when this one was stored (replicas race on it). */
  async insertIfAbsent(name: string, tokenHash: string, tokenMac: string): Promise<boolean> {
    const inserted = await this.database.returning<{ token_hash: string }>(
      `INSERT INTO admin_credential (name, token_hash, token_mac) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING token_hash`,
      [name, tokenHash, tokenMac],
    );
    return inserted.length > 0;
  }

  /** The stored hash and its MAC, as stored (the caller checks them); null when there is no row. */
  async find(name: string): Promise<{ tokenHash: string; tokenMac: string | null } | null> {
    const [row] = await this.database.query<Array<{ token_hash: string; token_mac: string | null }>>(
      `SELECT token_hash, token_mac FROM admin_credential WHERE name = $1`,
      [name],
    );
    return row ? { tokenHash: row.token_hash, tokenMac: row.token_mac } : null;
  }
}
