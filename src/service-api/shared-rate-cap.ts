import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { OutboundError } from '../http/outbound-error.js';
import type { SharedRedisService } from '../queues/shared-redis.service.js';

/**
 * Slots are spaced (1000 + GUARD_MS) / rps ms apart rather than 1000 / rps. The service counts arrivals, and a call
 * may arrive later after its slot than another does (timers, a busy event loop, the network), which brings it closer
 * to the calls after it: the guard absorbs up to GUARD_MS - MAX_LATE_MS of that, for a tenth of the rate.
 */
export const GUARD_MS = 100;
/** A caller waking later than this after its slot gives the slot up and takes a new one, so late calls never bunch up. */
export const MAX_LATE_MS = 10;
/** After this many slots given up, a caller goes anyway: a process too busy to keep any timer must still make progress. */
const MAX_TRIES = 5;

/** The delay until a reserved slot, and the hold-off in force when it was reserved (a later one voids the slot). */
export interface Reservation {
  waitMs: number;
  hold: number;
}

/**
 * Evenly spaced slots (GCRA: the theoretical arrival time `tat` advances by one interval per call) kept in process.
 * The same arithmetic as the Lua script below, used while Redis is unreachable.
 */
export class LocalSlots {
  private tat = 0;
  private hold = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  reserve(): Reservation {
    const now = this.now();
    const slot = Math.max(this.tat, now, this.hold);
    this.tat = slot + this.intervalMs;
    return { waitMs: slot - now, hold: this.hold };
  }

  /** No slot starts within `ms` from now. */
  holdOff(ms: number): void {
    this.hold = Math.max(this.hold, this.now() + ms);
  }

  heldSince(reservation: Reservation): boolean {
    return this.hold > reservation.hold;
  }
}

/*
 * rate-limiter-flexible (the well-kept library for this) counts points in fixed windows: up to twice the cap can
 * pass across a window's edge, and its queue waits per process. A sliding 1 s cap across replicas needs evenly
 * spaced slots on one clock, so this is the small script: it reserves the next slot on Redis' own clock (TIME, in
 * µs, which every replica shares), and the caller sleeps until it. Integers are written with %.0f because Lua
 * would print them in exponent form.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('HGET', KEYS[1], 'tat') or '0')
local hold = tonumber(redis.call('HGET', KEYS[1], 'hold') or '0')
local slot = math.max(tat, now, hold)
redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', slot + tonumber(ARGV[1])))
redis.call('PEXPIRE', KEYS[1], math.ceil((slot - now) / 1000) + 60000)
return {slot - now, hold}
`;

const HOLD = `
local t = redis.call('TIME')
local until_us = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[1]) * 1000
if until_us > tonumber(redis.call('HGET', KEYS[1], 'hold') or '0') then
  redis.call('HSET', KEYS[1], 'hold', string.format('%.0f', until_us))
  redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), tonumber(ARGV[1]) + 60000))
end
return 0
`;

type ScriptedRedis = Redis & {
  crmSyncReserveSlot(key: string, intervalUs: number): Promise<[number, number]>;
  crmSyncHoldSlots(key: string, ms: number): Promise<number>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At most `maxRps` calls in any 1 s window for every replica together: each try of a call takes the next slot from
 * Redis and waits for it. A 429 with Retry-After holds every replica's slots off for that long. While Redis is
 * unreachable the cap is kept per process (logged once), so calls neither fail nor hang.
 */
export class SharedRateCap {
  private readonly logger = new Logger('ServiceRateCap');
  private readonly redis: ScriptedRedis;
  private readonly intervalUs: number;
  private readonly local: LocalSlots;
  private degraded = false;

  constructor(
    private readonly shared: SharedRedisService,
    private readonly key: string,
    maxRps: number,
  ) {
    this.intervalUs = Math.ceil(((1000 + GUARD_MS) * 1000) / maxRps);
    this.local = new LocalSlots(this.intervalUs / 1000);
    this.redis = shared.client as ScriptedRedis;
    if (typeof this.redis.crmSyncReserveSlot !== 'function') {
      this.redis.defineCommand('crmSyncReserveSlot', { numberOfKeys: 1, lua: RESERVE });
      this.redis.defineCommand('crmSyncHoldSlots', { numberOfKeys: 1, lua: HOLD });
    }
  }

  /** Runs one try of a call in its slot; a 429 naming a wait holds everyone off for it. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await call();
    } catch (err) {
      if (err instanceof OutboundError && err.failure === 'rate_limited' && err.retryAfterMs) await this.holdOff(err.retryAfterMs);
      throw err;
    }
  }

  async holdOff(ms: number): Promise<void> {
    this.local.holdOff(ms);
    if (!this.shared.reachable) return;
    await this.redis.crmSyncHoldSlots(this.key, Math.ceil(ms)).catch(() => undefined);
  }

  /** Waits for a slot of its own. */
  async take(): Promise<void> {
    for (let tries = 1; ; tries++) {
      const { reservation, heldSince } = await this.reserve();
      const due = performance.now() + reservation.waitMs;
      if (reservation.waitMs > 0) await sleep(reservation.waitMs);
      if (tries >= MAX_TRIES) return;
      if (performance.now() - due > MAX_LATE_MS) continue;
      if (reservation.waitMs > 0 && (await heldSince())) continue;
      return;
    }
  }

  private async reserve(): Promise<{ reservation: Reservation; heldSince: () => Promise<boolean> }> {
    if (this.shared.reachable) {
      try {
        const [waitUs, hold] = await this.redis.crmSyncReserveSlot(this.key, this.intervalUs);
        if (this.degraded) this.logger.log('Redis is back: the service rate cap holds for the whole deployment again');
        this.degraded = false;
        const reservation = { waitMs: waitUs / 1000, hold: Number(hold) };
        return { reservation, heldSince: () => this.sharedHeldSince(reservation) };
      } catch {
        // the per-process cap below
      }
    }
    if (!this.degraded) this.logger.warn('Redis is unreachable: the service rate cap holds per replica until it is back');
    this.degraded = true;
    const reservation = this.local.reserve();
    return { reservation, heldSince: () => Promise.resolve(this.local.heldSince(reservation)) };
  }

  private async sharedHeldSince(reservation: Reservation): Promise<boolean> {
    const hold = await this.redis.hget(this.key, 'hold').catch(() => null);
    return hold !== null && Number(hold) > reservation.hold;
  }
}

const serviceCaps = new WeakMap<SharedRedisService, SharedRateCap>();

/**
 * The deployment's cap on calls to the service (`SERVICE_API_MAX_RPS`): one per process (per SharedRedisService), whoever
 * asks (the client, the connection checks), so that the per-process fallback while Redis is away is one cap too.
 */
export function serviceRateCap(shared: SharedRedisService, maxRps: number): SharedRateCap {
  let cap = serviceCaps.get(shared);
  if (!cap) serviceCaps.set(shared, (cap = new SharedRateCap(shared, shared.key('ratelimit', 'service'), maxRps)));
  return cap;
}
