import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { WindowCounter } from '../queues/window-counter.js';
import { clientKey } from './client-key.js';

/** What a sign-in attempt (`POST /admin/session`) or a Bearer request is, for the log line of its failure. */
export type SignInKind = 'sign-in' | 'bearer';

/** A slot reserved for checking one token (`refusedFor` 0; `settle` says how the check went), or past the limit the seconds to wait. */
export interface SignInSlot {
  refusedFor: number;
  settle(actorFound: boolean): Promise<void>;
}

/**
 * Failed sign-ins and Bearer failures, counted per client (an IPv4 address, an IPv6 /64: client-key.ts) in fixed
 * windows of `SIGN_IN_WINDOW_SECONDS` on Redis (so every replica counts together). A token is checked only in a slot
 * reserved first (one atomic INCR): past `SIGN_IN_MAX_FAILURES` slots the client is refused with 429 until the window
 * ends, whatever token it sends, so guesses sent at once get no more checks than guesses sent one by one. A refused
 * request and a right token give their slot back; a wrong one keeps it as its failure. While Redis cannot be reached each replica counts on its
 * own. The address is Fastify's `request.ip`: the peer, or the client a proxy named in `TRUST_PROXY` forwarded for.
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

  /** Reserves a slot for checking one token from `address`, before the token is looked at. */
  async reserve(address: string, kind: SignInKind): Promise<SignInSlot> {
    const key = clientKey(address);
    const { count, secondsLeft } = await this.failures.count(key, true);
    if (count > this.maxFailures) {
      // Counted only while the tokens in the other slots are checked: the count stays the failures and those in flight.
      await this.failures.giveBack(key);
      return { refusedFor: secondsLeft, settle: () => Promise.resolve() };
    }
    return {
      refusedFor: 0,
      settle: async (actorFound) => {
        if (actorFound) return this.failures.giveBack(key);
        this.logFailure(address, kind, count, secondsLeft);
      },
    };
  }

  /** The failure is the reserved slot itself; logged naming the address and the kind, never the token. */
  private logFailure(address: string, kind: SignInKind, count: number, secondsLeft: number): void {
    const what = kind === 'sign-in' ? 'sign-in with an unknown admin token' : 'request with an unknown Bearer token';
    if (count < this.maxFailures) this.logger.warn(`refused a ${what} from ${address} (${count} of ${this.maxFailures} failures allowed a window)`);
    else this.logger.warn(`refused a ${what} from ${address}: ${count} failures, so that address is refused (429) for ${secondsLeft} s`);
  }
}
