import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { SharedRedisService } from '../../../queues/shared-redis.service.js';

/*
 * A counting semaphore on Redis' own clock: a sorted set of leases scored by when each runs out, so that a replica
 * that dies holding one frees it when its lease ends. Taking one drops the run-out leases first.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), tonumber(ARGV[2]) + 1000))
  return 1
end
return 0
`;

type ScriptedRedis = Redis & { crmSyncTakeLease(key: string, limit: number, leaseMs: number, holder: string): Promise<number> };

const POLL_MS = 25;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most `limit()` calls at once in this process; the rest wait their turn in order. */
export class LocalGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  async run<T>(call: () => Promise<T>): Promise<T> {
    while (this.running >= this.limit()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await call();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * At most `limit()` requests at once to one org from every replica together (Salesforce counts its concurrent
 * long-running requests per org: 25, 5 on Developer Edition and trial orgs). Each call holds a lease in Redis for as
 * long as it runs (at most `leaseMs`, the longest a call may take). While Redis is unreachable the cap holds per
 * process (logged once), so calls neither fail nor hang.
 */
export class OrgRequestSlots {
  private readonly logger = new Logger('SalesforceRequestSlots');
  private readonly redis: ScriptedRedis;
  private readonly local: LocalGate;
  private degraded = false;

  constructor(
    private readonly shared: SharedRedisService,
    /** The org's key under the shared prefix (its id once a session names it). */
    private readonly keyOf: () => string,
    private readonly limit: () => number,
    private readonly leaseMs: number,
  ) {
    this.local = new LocalGate(limit);
    this.redis = shared.client as ScriptedRedis;
    if (typeof this.redis.crmSyncTakeLease !== 'function') this.redis.defineCommand('crmSyncTakeLease', { numberOfKeys: 1, lua: TAKE });
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const key = this.shared.key('salesforce', this.keyOf(), 'requests');
    const holder = randomBytes(9).toString('base64url');
    if (!(await this.take(key, holder))) return this.local.run(call);
    try {
      return await call();
    } finally {
      await this.redis.zrem(key, holder).catch(() => undefined); // else its lease runs out
    }
  }

  /** Waits for a lease; false when Redis cannot give one (the local gate then). */
  private async take(key: string, holder: string): Promise<boolean> {
    for (;;) {
      if (!this.shared.reachable) return this.fallBack();
      try {
        if ((await this.redis.crmSyncTakeLease(key, this.limit(), this.leaseMs, holder)) === 1) {
          if (this.degraded) this.logger.log('Redis is back: the Salesforce request cap holds for the whole deployment again');
          this.degraded = false;
          return true;
        }
      } catch {
        return this.fallBack();
      }
      await sleep(POLL_MS + Math.random() * POLL_MS);
    }
  }

  private fallBack(): false {
    if (!this.degraded) this.logger.warn('Redis is unreachable: the Salesforce request cap holds per replica until it is back');
    this.degraded = true;
    return false;
  }
}
