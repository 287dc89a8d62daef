import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { withAdvisoryLock } from '../../../database/advisory-lock.js';
import { salesforceSessionBinding } from '../../../connections/sealed-binding.js';
import type { SalesforceSession, SalesforceSessionKeeper } from './salesforce-api.js';
import type { SalesforceSessionRepository } from './salesforce-session.repository.js';

/** How long, and how often, a refreshed session is tried again when Postgres cannot keep it (a restart takes seconds). */
const KEEP_TRIES_MS = 60_000;
const KEEP_RETRY_MS = 250;

/** Seals and opens values with CONNECTIONS_KEY (ConnectionsService). */
export interface Sealer {
  seal(value: unknown, associatedData: string): string;
  open<T>(sealed: string, associatedData: string): T;
}

/** A connection's key: its login host, client id and the refresh token it was given; no secret is in the key. */
export function grantKeyOf(connection: { loginUrl: string; clientId: string; refreshToken: string }): string {
  return createHash('sha256').update(`${connection.loginUrl}\n${connection.clientId}\n${connection.refreshToken}`).digest('hex');
}

/**
 * A Salesforce connection's session kept in Postgres for every replica, sealed: a refresh runs under an advisory lock
 * of the connection, reads what is kept first, and keeps its result before the lock is let go, so the replicas refresh
 * one at a time and each presents the refresh token the last refresh was given (under rotation, the only live one).
 * A restart reads the kept session; the refresh token the connection was given is used only while nothing is kept.
 */
export class KeptSalesforceSessions implements SalesforceSessionKeeper {
  private readonly logger = new Logger('SalesforceSessions');
  readonly grantKey: string;

  constructor(
    private readonly repository: SalesforceSessionRepository,
    private readonly sealer: Sealer,
    private readonly databaseUrl: string,
    private readonly connection: { loginUrl: string; clientId: string; refreshToken: string },
  ) {
    this.grantKey = grantKeyOf(connection);
  }

  async read(): Promise<SalesforceSession | null> {
    const sealed = await this.repository.find(this.grantKey);
    if (!sealed) return null;
    try {
      return this.sealer.open<SalesforceSession>(sealed, salesforceSessionBinding(this.grantKey));
    } catch (err) {
      // Sealed with another CONNECTIONS_KEY: the connection's own refresh token is all there is.
      this.logger.error(`the kept Salesforce session cannot be opened (${(err as Error).message}); the connection's refresh token is used`);
      return null;
    }
  }

  exclusive(renew: (kept: SalesforceSession | null) => Promise<SalesforceSession>): Promise<SalesforceSession> {
    return withAdvisoryLock(this.databaseUrl, `crm_sync_salesforce_session:${this.grantKey}`, async () => {
      const kept = await this.read();
      const next = await renew(kept);
      if (next !== kept) {
        const rotated = next.refreshToken !== (kept?.refreshToken ?? this.connection.refreshToken);
        await this.keep(next, rotated);
        if (rotated) this.logger.log('Salesforce rotated the refresh token; the new one is kept for every replica');
      }
      return next;
    });
  }

  /**
   * Keeps a session, trying again while Postgres is away (a restart): under rotation the refresh token it holds is
   * the only live one, and a replica that refreshed with the one kept before would revoke the consent.
   */
  private async keep(session: SalesforceSession, rotated: boolean): Promise<void> {
    const sealed = this.sealer.seal(session, salesforceSessionBinding(this.grantKey));
    const until = Date.now() + KEEP_TRIES_MS;
    for (;;) {
      try {
        return await this.repository.save(this.grantKey, sealed, rotated);
      } catch (err) {
        if (Date.now() >= until) throw err;
        if (rotated) this.logger.warn(`the rotated Salesforce refresh token could not be kept yet (${(err as Error).message}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, KEEP_RETRY_MS));
      }
    }
  }

  /** Forgets the kept session (the connection was disconnected or replaced). */
  async forget(): Promise<void> {
    await this.repository.remove(this.grantKey);
  }
}
