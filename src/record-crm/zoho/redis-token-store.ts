import type { Redis } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import type { SharedRedisService } from '../../queues/shared-redis.service.js';
import type { TokenRefusal, TokenStore, ZohoToken } from './token-store.js';

const DROP_IF_SAME = `
local value = redis.call('GET', KEYS[1])
if value and cjson.decode(value).accessToken == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

const UNLOCK_IF_MINE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type ScriptedRedis = Redis & {
  crmSyncDropToken(key: string, accessToken: string): Promise<number>;
  crmSyncUnlock(key: string, owner: string): Promise<number>;
};

/**
 * The access token of one Zoho connection, shared by every replica: `<prefix>:zoho:<hash>:token` (the token, its API
 * domain and `renewAt`, expiring at `renewAt`), `…:refused` (Zoho's refusal, expiring with it) and `…:refresh-lock`.
 * The hash is of the client id and refresh token, so a new connection has keys of its own and no secret is in a key.
 * Every method throws when Redis does, and the caller does without.
 */
export class RedisTokenStore implements TokenStore {
  private readonly redis: ScriptedRedis;
  private readonly keys: { token: string; refused: string; lock: string; account: string };

  constructor(
    private readonly shared: SharedRedisService,
    connection: { clientId: string; refreshToken: string },
  ) {
    const hash = createHash('sha256').update(`${connection.clientId}\n${connection.refreshToken}`).digest('hex').slice(0, 32);
    this.keys = {
      token: shared.key('zoho', hash, 'token'),
      refused: shared.key('zoho', hash, 'refused'),
      lock: shared.key('zoho', hash, 'refresh-lock'),
      account: shared.key('zoho', hash, 'account'),
    };
    this.redis = shared.client as ScriptedRedis;
    if (typeof this.redis.crmSyncDropToken !== 'function') {
      this.redis.defineCommand('crmSyncDropToken', { numberOfKeys: 1, lua: DROP_IF_SAME });
      this.redis.defineCommand('crmSyncUnlock', { numberOfKeys: 1, lua: UNLOCK_IF_MINE });
    }
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
    const [token, refusal] = await this.redis.mget(this.keys.token, this.keys.refused);
    return { token: token ? (JSON.parse(token) as ZohoToken) : null, refusal: refusal ? (JSON.parse(refusal) as TokenRefusal) : null };
  }

  async save(token: ZohoToken): Promise<void> {
    const ttl = Math.floor(token.renewAt - Date.now());
    if (ttl <= 0) return;
    this.ensureReachable();
    await this.redis.set(this.keys.token, JSON.stringify(token), 'PX', ttl);
  }

  async refuse(refusal: TokenRefusal): Promise<void> {
    const ttl = Math.floor(refusal.until - Date.now());
    if (ttl <= 0) return;
    this.ensureReachable();
    await this.redis.set(this.keys.refused, JSON.stringify(refusal), 'PX', ttl);
  }

  async drop(accessToken: string): Promise<void> {
    this.ensureReachable();
    await this.redis.crmSyncDropToken(this.keys.token, accessToken);
  }

  async lock(ms: number): Promise<(() => Promise<void>) | null> {
    this.ensureReachable();
    const owner = randomBytes(12).toString('hex');
    const taken = await this.redis.set(this.keys.lock, owner, 'PX', Math.ceil(ms), 'NX');
    if (taken !== 'OK') return null;
    return async () => {
      await this.redis.crmSyncUnlock(this.keys.lock, owner).catch(() => undefined);
    };
  }

  private ensureReachable(): void {
    if (!this.shared.reachable) throw new Error('Redis is unreachable');
  }
}
