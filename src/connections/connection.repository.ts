import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { ConnectionName } from '../config/connection-settings.js';

export interface ConnectionRow {
  name: ConnectionName;
  settings: Record<string, string>;
  sealedSecrets: string;
  /** Sealed before the upgrade that bound secrets to their settings (migration 1763700013000): re-sealed on first read. */
  legacySeal: boolean;
  revision: string;
  updatedAt: Date;
  updatedBy: string | null;
}

/** Every statement on `connection` (migration 1763700011000). */
@Injectable()
export class ConnectionRepository {
  constructor(private readonly database: DatabaseService) {}

  async all(): Promise<ConnectionRow[]> {
    const rows = await this.database.query<Array<Record<string, unknown>>>(
      `SELECT name, settings, sealed_secrets, legacy_seal, revision::text AS revision, updated_at, updated_by FROM connection`,
    );
    return rows.map((r) => ({
      name: r.name as ConnectionName,
      settings: r.settings as Record<string, string>,
      sealedSecrets: r.sealed_secrets as string,
      legacySeal: r.legacy_seal as boolean,
      revision: r.revision as string,
      updatedAt: r.updated_at as Date,
      updatedBy: r.updated_by as string | null,
    }));
  }

  /** Every row's revision: what each replica polls to see a change. */
  async revisions(): Promise<Map<ConnectionName, string>> {
    const rows = await this.database.query<Array<{ name: ConnectionName; revision: string }>>(`SELECT name, revision::text AS revision FROM connection`);
    return new Map(rows.map((r) => [r.name, r.revision]));
  }

  async save(name: ConnectionName, settings: Record<string, string>, sealedSecrets: string, actor: string): Promise<void> {
    await this.database.query(
      `INSERT INTO connection (name, settings, sealed_secrets, updated_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET settings = EXCLUDED.settings, sealed_secrets = EXCLUDED.sealed_secrets, legacy_seal = false,
         updated_by = EXCLUDED.updated_by, updated_at = now(), revision = connection.revision + 1`,
      [name, JSON.stringify(settings), sealedSecrets, actor],
    );
  }

  /**
   * Replaces a legacy seal by its re-sealed form, unless the row changed meanwhile (another replica re-sealed or saved
   * it). The settings are the same, so the revision stays: no replica needs to read the row again.
   */
  async reseal(name: ConnectionName, legacy: string, resealed: string): Promise<void> {
    await this.database.query(`UPDATE connection SET sealed_secrets = $3, legacy_seal = false WHERE name = $1 AND sealed_secrets = $2 AND legacy_seal`, [
      name,
      legacy,
      resealed,
    ]);
  }

  async remove(name: ConnectionName): Promise<void> {
    await this.database.query(`DELETE FROM connection WHERE name = $1`, [name]);
  }
}
