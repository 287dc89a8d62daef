import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import { zohoTokenBinding } from '../../connections/sealed-binding.js';
import type { SharedRedisService } from '../../queues/shared-redis.service.js';
import type { TokenRefusal, TokenStore, ZohoToken } from './token-store.js';

const DELETE_IF_SAME = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type ScriptedRedis = Redis & { crmSyncDeleteIfSame(key: string, value: string): Promise<number> };

/** Seals and opens values with the connections key (ConnectionsService), bound to what they are for. */
export interface TokenSeal {
  seal(value: unknown, associatedData: string): string;
  open<T>(sealed: string, associatedData: string): T;
}

/**
 * The access token of one Zoho connection, shared by every replica: `<prefix>:zoho:<hash>:token` (the token, its API
 * domain and `renewAt`, sealed with the connections key and bound to the connection, expiring at `renewAt`),
 * `…:refused` (Zoho's refusal, expiring with it), `…:refresh-lock` and `…:account` (the organization last read). The
 * hash is of the client id and refresh token, so a new connection has keys of its own and no secret is in a key. A
 * token that does not open (sealed under another key, or written there by another hand) is no token: a new one is
 * asked for and replaces it. Without a connections key no token is shared: each process keeps its own (and its own
 * refresh lock), the refusal is still shared. Every method throws when Redis does, and the caller does without.
 */
export class RedisTokenStore implements TokenStore {
  private readonly logger = new Logger('ZohoToken');
  private readonly redis: ScriptedRedis;
  private readonly keys: { token: string; refused: string; lock: string; account: string };
  private readonly binding: string;
  /** The sealed form of the token this store last read or saved, so that `drop` removes that one only. */
  private lastSealed: { accessToken: string; sealed: string } | null = null;
  private localLockUntil = 0;

  constructor(
    private readonly shared: SharedRedisService,
    connection: { clientId: string; refreshToken: string },
    private readonly sealer: TokenSeal | null,
  ) {
    const hash = createHash('sha256').update(`${connection.clientId}\n${connection.refreshToken}`).digest('hex').slice(0, 32);
    this.binding = zohoTokenBinding(hash);
    this.keys = {
      token: shared.key('zoho', hash, 'token'),
      refused: shared.key('zoho', hash, 'refused'),
      lock: shared.key('zoho', hash, 'refresh-lock'),
      account: shared.key('zoho', hash, 'account'),
    };
    this.redis = shared.client as ScriptedRedis;
    if (typeof this.redis.crmSyncDeleteIfSame !== 'function') this.redis.defineCommand('crmSyncDeleteIfSame', { numberOfKeys: 1, lua: DELETE_IF_SAME });
  }

  /** The organization one replica last read for readiness and the checks, and when; null when none is kept. */
  async readAccount<A>(): Promise<{ value: A | null; at: number } | null> {
    const raw = await this.shared.client.get(this.keys.account);
    return raw ? (JSON.parse(raw) as { value: A | null; at: number }) : null;
  }

  /** Keeps what was read for `ttlMs`, for every replica: N replicas read Zoho's organization once per period. */
  async saveAccount<A>(entry: { value: A | null; at: number }, ttlMs: number): Promise<void> {
    await this.shared.client.set(this.keys.account, JSON.stringify(entry), 'PX', ttlMs);
  }

  async read(): Promise<{ token: ZohoToken | null; refusal: TokenRefusal | null }> {
    this.ensureReachable();
    const [sealed, refusal] = await this.redis.mget(this.keys.token, this.keys.refused);
    return { token: sealed ? this.opened(sealed) : null, refusal: refusal ? (JSON.parse(refusal) as TokenRefusal) : null };
  }

  async save(token: ZohoToken): Promise<void> {
    const ttl = Math.floor(token.renewAt - Date.now());
    if (ttl <= 0 || !this.sealer) return;
    this.ensureReachable();
    const sealed = this.sealer.seal(token, this.binding);
    await this.redis.set(this.keys.token, sealed, 'PX', ttl);
    this.lastSealed = { accessToken: token.accessToken, sealed };
  }

  async refuse(refusal: TokenRefusal): Promise<void> {
    const ttl = Math.floor(refusal.until - Date.now());
    if (ttl <= 0) return;
    this.ensureReachable();
    await this.redis.set(this.keys.refused, JSON.stringify(refusal), 'PX', ttl);
  }

  async drop(accessToken: string): Promise<void> {
    if (this.lastSealed?.accessToken !== accessToken) return;
    this.ensureReachable();
    await this.redis.crmSyncDeleteIfSame(this.keys.token, this.lastSealed.sealed);
  }

  async lock(ms: number): Promise<(() => Promise<void>) | null> {
    if (!this.sealer) return this.localLock(ms);
    this.ensureReachable();
    const owner = randomBytes(12).toString('hex');
    const taken = await this.redis.set(this.keys.lock, owner, 'PX', Math.ceil(ms), 'NX');
    if (taken !== 'OK') return null;
    return async () => {
      await this.redis.crmSyncDeleteIfSame(this.keys.lock, owner).catch(() => undefined);
    };
  }

  private opened(sealed: string): ZohoToken | null {
    if (!this.sealer) return null;
    try {
      const token = this.sealer.open<ZohoToken>(sealed, this.binding);
      this.lastSealed = { accessToken: token.accessToken, sealed };
      return token;
    } catch {
      this.logger.warn(
        'the Zoho token kept in Redis does not open with the connections key (sealed under another key, or written there by someone else): not used; a new one is asked for',
      );
      return null;
    }
  }

  /** Without a shared token, the refresh lock is this process's: nobody else would save a token to wait for. */
  private localLock(ms: number): Promise<(() => Promise<void>) | null> {
    if (Date.now() < this.localLockUntil) return Promise.resolve(null);
    this.localLockUntil = Date.now() + ms;
    return Promise.resolve(() => {
      this.localLockUntil = 0;
      return Promise.resolve();
    });
  }

  private ensureReachable(): void {
    if (!this.shared.reachable) throw new Error('Redis is unreachable');
  }
}
