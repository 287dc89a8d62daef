import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';

/** What a sign-in attempt (`POST /admin/session`) or a Bearer request is, for the log line of its failure. */
export type SignInKind = 'sign-in' | 'bearer';

/**
 * Failed sign-ins and Bearer failures, counted per client address in fixed windows of `windowSeconds` on Redis (so
 * every replica counts together); from the `maxFailures`-th failure on, the address is refused with 429 until the
 * window ends, whatever token it sends, so guessing goes no faster than `maxFailures` a window. While Redis cannot be
 * reached each replica counts on its own. The address is Fastify's `request.ip`: the peer, or the client a proxy
 * named in `TRUST_PROXY` forwarded for.
 */
@Injectable()
export class SignInThrottle {
  private readonly logger = new Logger('SignIn');
  private readonly local = new Map<string, { count: number; endsAt: number }>();
  private readonly maxFailures: number;
  private readonly windowSeconds: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly redis: SharedRedisService,
  ) {
    this.maxFailures = config.signIn.maxFailures;
    this.windowSeconds = config.signIn.windowSeconds;
  }

  /** Seconds until `address` may try again, or 0 when it may now. */
  async retryAfter(address: string): Promise<number> {
    const counted = await this.count(address, false);
    return counted.count >= this.maxFailures ? counted.secondsLeft : 0;
  }

  /** Counts a failure of `address` and logs it, naming the address and the kind, never the token. */
  async failed(address: string, kind: SignInKind): Promise<void> {
    const { count, secondsLeft } = await this.count(address, true);
    const what = kind === 'sign-in' ? 'sign-in with an unknown admin token' : 'request with an unknown Bearer token';
    if (count < this.maxFailures) this.logger.warn(`refused a ${what} from ${address} (${count} of ${this.maxFailures} failures allowed a window)`);
    else if (count === this.maxFailures)
      this.logger.warn(`refused a ${what} from ${address}: ${count} failures, so that address is refused (429) for ${secondsLeft} s`);
  }

  private async count(address: string, add: boolean): Promise<{ count: number; secondsLeft: number }> {
    if (this.redis.reachable) {
      try {
        return await this.countOnRedis(address, add);
      } catch {
        // fall through to this process's own count
      }
    }
    return this.countLocally(address, add);
  }

  private async countOnRedis(address: string, add: boolean): Promise<{ count: number; secondsLeft: number }> {
    const key = this.redis.key('sign-in-failures', address);
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

  private countLocally(address: string, add: boolean): { count: number; secondsLeft: number } {
    const now = Date.now();
    let entry = this.local.get(address);
    if (!entry || entry.endsAt <= now) {
      if (!add) return { count: 0, secondsLeft: 0 };
      entry = { count: 0, endsAt: now + this.windowSeconds * 1000 };
      this.local.set(address, entry);
      for (const [other, e] of this.local) if (e.endsAt <= now) this.local.delete(other);
    }
    if (add) entry.count += 1;
    return { count: entry.count, secondsLeft: Math.ceil((entry.endsAt - now) / 1000) };
  }
}
