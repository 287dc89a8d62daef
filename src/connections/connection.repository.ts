import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { ConnectionName } from './connection-settings.js';

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

export interface CheckRow {
  name: ConnectionName;
  ok: boolean;
  detail: string | null;
  checkedAt: Date;
}

export interface OAuthStateRow {
  actor: string;
  sealedRequest: string;
}

/** The SQL of the connection tables (migration 1763700011000). */
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
    await this.database.query(`DELETE FROM connection_check WHERE name = $1`, [name]);
  }

  async checks(): Promise<Map<ConnectionName, CheckRow>> {
    const rows = await this.database.query<Array<{ name: ConnectionName; ok: boolean; detail: string | null; checked_at: Date }>>(
      `SELECT name, ok, detail, checked_at FROM connection_check`,
    );
    return new Map(rows.map((r) => [r.name, { name: r.name, ok: r.ok, detail: r.detail, checkedAt: r.checked_at }]));
  }

  async recordCheck(name: ConnectionName, ok: boolean, detail: string | null): Promise<void> {
    await this.database.query(
      `INSERT INTO connection_check (name, ok, detail, checked_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (name) DO UPDATE SET ok = EXCLUDED.ok, detail = EXCLUDED.detail, checked_at = now()`,
      [name, ok, detail],
    );
  }

  async addOAuthState(stateHash: string, bindingHash: string, actor: string, sealedRequest: string, ttlSeconds: number): Promise<void> {
    await this.database.query(`DELETE FROM oauth_state WHERE expires_at < now() - interval '1 day'`);
    await this.database.query(
      `INSERT INTO oauth_state (state_hash, binding_hash, actor, sealed_request, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [stateHash, bindingHash, actor, sealedRequest, ttlSeconds],
    );
  }

  /** Marks a state used and answers it, once: null when it is unknown, used already, expired or bound to another browser. */
  async takeOAuthState(stateHash: string, bindingHash: string): Promise<OAuthStateRow | null> {
    const rows = await this.database.returning<{ actor: string; sealed_request: string }>(
      `UPDATE oauth_state SET used_at = now()
       WHERE state_hash = $1 AND binding_hash = $2 AND used_at IS NULL AND expires_at > now()
       RETURNING actor, sealed_request`,
      [stateHash, bindingHash],
    );
    return rows[0] ? { actor: rows[0].actor, sealedRequest: rows[0].sealed_request } : null;
  }
}
