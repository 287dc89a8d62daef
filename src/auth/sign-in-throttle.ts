import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { WindowCounter, type WindowCount } from '../queues/window-counter.js';
import { clientKey } from './client-key.js';

/** What a sign-in attempt (`POST /admin/session`) or a Bearer request is, for the log line of its failure. */
export type SignInKind = 'sign-in' | 'bearer';

/**
 * Failed sign-ins and Bearer failures, counted per client (an IPv4 address, an IPv6 /64: client-key.ts) in fixed
 * windows of `SIGN_IN_WINDOW_SECONDS` on Redis (so every replica counts together); from the `SIGN_IN_MAX_FAILURES`-th
 * failure on, the client is refused with 429 until the window ends, whatever token it sends, so guessing goes no faster
 * than that a window. While Redis cannot be reached each replica counts on its own. The address is Fastify's
 * `request.ip`: the peer, or the client a proxy named in `TRUST_PROXY` forwarded for.
 */
@Injectable()
export class SignInThrottle {
  private readonly logger = new Logger('SignIn');
  private readonly failures: WindowCounter;
  private readonly maxFailures: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: SharedRedisService) {
    this.maxFailures = config.signIn.maxFailures;
    this.failures = new WindowCounter(redis, 'sign-in-failures', config.signIn.windowSeconds);
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

  private count(address: string, add: boolean): Promise<WindowCount> {
    return this.failures.count(clientKey(address), add);
  }
}
