import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { ConnectionName } from '../config/connection-settings.js';
import type { CheckCode } from './check-codes.js';

/** The last check of a connection. */
export interface CheckRow {
  name: ConnectionName;
  ok: boolean;
  code: CheckCode | null;
  detail: string | null;
  checkedAt: Date;
}

/** Every statement on `connection_check`. */
@Injectable()
export class ConnectionCheckRepository {
  constructor(private readonly database: DatabaseService) {}

  async all(): Promise<Map<ConnectionName, CheckRow>> {
    const rows = await this.database.query<Array<{ name: ConnectionName; ok: boolean; code: CheckCode | null; detail: string | null; checked_at: Date }>>(
      `SELECT name, ok, code, detail, checked_at FROM connection_check`,
    );
    return new Map(rows.map((r) => [r.name, { name: r.name, ok: r.ok, code: r.code, detail: r.detail, checkedAt: r.checked_at }]));
  }

  async save(name: ConnectionName, ok: boolean, code: CheckCode | null, detail: string | null): Promise<void> {
    await this.database.query(
      `INSERT INTO connection_check (name, ok, code, detail, checked_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (name) DO UPDATE SET ok = EXCLUDED.ok, code = EXCLUDED.code, detail = EXCLUDED.detail, checked_at = now()`,
      [name, ok, code, detail],
    );
  }

  async delete(name: ConnectionName): Promise<void> {
    await this.database.query(`DELETE FROM connection_check WHERE name = $1`, [name]);
  }
}
