import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { publicUrlOf } from '../connections/public-url.js';
import { DatabaseUnavailableError } from '../database/database.errors.js';
import { DatabaseService } from '../database/database.service.js';
import type { AdminActor } from '../config/roles.js';
import { AdminCredentialRepository, RESET_CREDENTIALS_STATEMENT } from './admin-credential.repository.js';
import { AdminIdentityService } from './session.service.js';

const ACTOR: AdminActor = { name: 'admin', role: 'admin' };
const RETRY_MS = 2_000;
const RESET = `to replace it, set ADMIN_TOKEN, or run ${RESET_CREDENTIALS_STATEMENT} and restart to have a new one printed`;

/**
 * With no admin token in the environment (ADMIN_TOKEN, or an admin of ADMIN_TOKENS), one is made by the daemon on
 * its first start: printed once (a warn line, with the console's address) and kept only as its sha256 in
 * `admin_credential`, MACed with the server's secret (a row the secret did not sign is refused), so a fresh `docker compose up` can be signed in to without any setting. Replicas starting together race on one INSERT ... ON CONFLICT DO NOTHING: the one
 * whose row lands prints its token, the others (and every later start) load the hash and print nothing secret.
 * Start-up never waits for Postgres: until the hash is loaded that token simply does not authenticate.
 */
@Injectable()
export class FirstStartTokenService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AdminToken');
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly credentials: AdminCredentialRepository,
    private readonly identity: AdminIdentityService,
  ) {}

  onApplicationBootstrap(): void {
    // An admin named in ADMIN_TOKENS is a way in already: a second, printed one would only be a credential to leak.
    const adminInEnvironment = this.config.adminToken !== null || this.config.adminTokens.some((t) => t.role === 'admin');
    if (!adminInEnvironment) void this.adoptWhenReady();
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
  }

  private async adoptWhenReady(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.database.whenReady();
        await this.adopt();
        return;
      } catch (err) {
        if (this.stopped) return;
        // DatabaseService already says why Postgres is not ready; anything else is worth a line of its own.
        if (!(err instanceof DatabaseUnavailableError)) this.logger.warn(`the admin token is not loaded yet (${(err as Error).message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }

  private async adopt(): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(token, 'utf8').digest('hex');
    if (await this.credentials.insertIfAbsent(ACTOR.name, hash, this.identity.credentialMac(ACTOR.name, hash))) {
      this.identity.addHashedToken(ACTOR, Buffer.from(hash, 'hex'));
      this.logger.warn(
        `no ADMIN_TOKEN is set, so the daemon made this admin token: ${token} — sign in with it at ${publicUrlOf(this.config)}/admin. ` +
          `It is shown only this once (only its hash is kept, in the table admin_credential); ${RESET}`,
      );
      return;
    }
    const stored = await this.credentials.find(ACTOR.name);
    if (stored === null) throw new Error('the admin_credential row was deleted while it was being read');
    const { tokenHash, tokenMac } = stored;
    if (!/^[0-9a-f]{64}$/.test(tokenHash)) {
      this.logger.error(`admin_credential holds no sha256 (hex) for admin, so no admin token is in use; ${RESET}`);
      return;
    }
    if (!this.identity.credentialMacMatches(ACTOR.name, tokenHash, tokenMac)) {
      const why =
        tokenMac === null
          ? 'carries no MAC (made by a version before credentials were signed, or written by hand)'
          : this.identity.secretIsStable
            ? "is not signed with this server's secret (written by someone who is not the daemon, or SESSION_SECRET or the connections key changed)"
            : 'cannot be checked: this process has no lasting secret (no SESSION_SECRET, no readable connections key)';
      this.logger.error(`the admin token stored in admin_credential ${why}, so it is not used; ${RESET}`);
      return;
    }
    this.identity.addHashedToken(ACTOR, Buffer.from(tokenHash, 'hex'));
    this.logger.log(`no ADMIN_TOKEN is set: the admin token made on the first start is in use (printed then, in the log); ${RESET}`);
  }
}
