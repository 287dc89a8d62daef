import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

export interface OAuthStateRow {
  actor: string;
  sealedRequest: string;
}

/** Every statement on `oauth_state`: the pending Zoho authorisations (state and browser binding kept as hashes). */
@Injectable()
export class OAuthStateRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Adds a state, dropping those expired for more than a day first. */
  async add(stateHash: string, bindingHash: string, actor: string, sealedRequest: string, ttlSeconds: number): Promise<void> {
    await this.database.query(`DELETE FROM oauth_state WHERE expires_at < now() - interval '1 day'`);
    await this.database.query(
      `INSERT INTO oauth_state (state_hash, binding_hash, actor, sealed_request, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [stateHash, bindingHash, actor, sealedRequest, ttlSeconds],
    );
  }

  /** Marks a state used and answers it, once: null when it is unknown, used already, expired or bound to another browser. */
  async take(stateHash: string, bindingHash: string): Promise<OAuthStateRow | null> {
    const rows = await this.database.returning<{ actor: string; sealed_request: string }>(
      `UPDATE oauth_state SET used_at = now()
       WHERE state_hash = $1 AND binding_hash = $2 AND used_at IS NULL AND expires_at > now()
       RETURNING actor, sealed_request`,
      [stateHash, bindingHash],
    );
    return rows[0] ? { actor: rows[0].actor, sealedRequest: rows[0].sealed_request } : null;
  }
}
