import type { SharedRedisService } from './shared-redis.service.js';

export interface WindowCount {
  count: number;
  /** Seconds until the window ends (0 when nothing is counted). */
  secondsLeft: number;
}

/** Takes one back from a count, never below 0 and never on a key that has expired meanwhile (it would outlive its window). */
const GIVE_BACK = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/**
 * Counts per key in fixed windows of `windowSeconds`, on Redis (`<QUEUE_PREFIX>:<name>:<key>`) so that every replica
 * counts together; while Redis cannot be reached, each process counts on its own.
 */
export class WindowCounter {
  private readonly local = new Map<string, { count: number; endsAt: number }>();

  constructor(
    private readonly redis: SharedRedisService,
    private readonly name: string,
    private readonly windowSeconds: number,
  ) {}

  /** Adds one to the key's count (`add`) or only reads it. */
  async count(key: string, add: boolean): Promise<WindowCount> {
    if (this.redis.reachable) {
      try {
        return await this.countOnRedis(key, add);
      } catch {
        // fall through to this process's own count
      }
    }
    return this.countLocally(key, add);
  }

  /** Takes one back that `count(key, true)` added (a reserved slot not used after all); nothing when the window ended. */
  async giveBack(key: string): Promise<void> {
    if (this.redis.reachable) {
      try {
        await this.redis.client.eval(GIVE_BACK, 1, this.redis.key(this.name, key));
        return;
      } catch {
        // fall through to this process's own count
      }
    }
    const entry = this.local.get(key);
    if (entry && entry.endsAt > Date.now() && entry.count > 0) entry.count -= 1;
  }

  private async countOnRedis(id: string, add: boolean): Promise<WindowCount> {
    const key = this.redis.key(this.name, id);
    const multi = this.redis.client.multi();
    if (add) multi.set(key, 0, 'EX', this.windowSeconds, 'NX').incr(key);
    else multi.get(key);
    multi.ttl(key);
    const results = (await multi.exec()) ?? [];
    for (const [err] of results) if (err) throw err;
    const values = results.map(([, value]) => value);
    const count = Number(values[values.length - 2] ?? 0);
    const ttl = Number(values[values.length - 1]);
    return { count, secondsLeft: ttl > 0 ? ttl : this.windowSeconds };
  }

  private countLocally(id: string, add: boolean): WindowCount {
    const now = Date.now();
    let entry = this.local.get(id);
    if (!entry || entry.endsAt <= now) {
      if (!add) return { count: 0, secondsLeft: 0 };
      entry = { count: 0, endsAt: now + this.windowSeconds * 1000 };
      this.local.set(id, entry);
      for (const [other, e] of this.local) if (e.endsAt <= now) this.local.delete(other);
    }
    if (add) entry.count += 1;
    return { count: entry.count, secondsLeft: Math.ceil((entry.endsAt - now) / 1000) };
  }
}
