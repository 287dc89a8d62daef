import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { OutboundError } from '../http/outbound-error.js';
import type { SharedRedisService } from '../queues/shared-redis.service.js';
import { GUARD_MS, LocalSlots, MAX_LATE_MS, SharedRateCap } from './shared-rate-cap.js';

describe(LocalSlots.name, () => {
  let now = 0;
  const clock = () => now;

  it('spaces slots one interval apart, from now when idle', () => {
    const slots = new LocalSlots(210, clock);
    expect([0, 1, 2].map(() => slots.reserve().waitMs)).toEqual([0, 210, 420]);
    now = 1_000; // idle since the last slot (420): no credit for the quiet time
    expect(slots.reserve().waitMs).toBe(0);
    expect(slots.reserve().waitMs).toBe(210);
  });

  it('starts no slot within a hold-off, and says which reservations it voids', () => {
    now = 0;
    const slots = new LocalSlots(100, clock);
    const before = slots.reserve();
    slots.holdOff(2_000);
    expect(slots.heldSince(before)).toBe(true);
    const after = slots.reserve();
    expect(after.waitMs).toBe(2_000);
    expect(slots.heldSince(after)).toBe(false);
    expect(slots.reserve().waitMs).toBe(2_100);
  });

  it('keeps any window of 1 s within the cap even when every other call leaves its slot as late as a caller may', () => {
    const rps = 5;
    const interval = (1000 + GUARD_MS) / rps;
    const slots = new LocalSlots(interval, () => 0);
    const sent = Array.from({ length: 30 }, (_, i) => slots.reserve().waitMs + (i % 2 ? MAX_LATE_MS : 0));
    for (let i = 0; i + rps < sent.length; i++) expect(sent[i + rps] - sent[i]).toBeGreaterThanOrEqual(1000 + GUARD_MS - MAX_LATE_MS);
  });
});

describe(SharedRateCap.name, () => {
  const warn = jest.spyOn(Logger.prototype, 'warn');
  beforeEach(() => warn.mockReset().mockImplementation(() => undefined));
  afterAll(() => warn.mockRestore());

  /** A SharedRedisService whose every command fails, as when Redis stops answering. */
  function brokenRedis(reachable: boolean): SharedRedisService {
    const fail = () => Promise.reject(new Error('Command timed out'));
    const client = { defineCommand: () => undefined, crmSyncReserveSlot: fail, crmSyncHoldSlots: fail, hget: fail };
    return { client, reachable, key: (...parts: string[]) => parts.join(':') } as unknown as SharedRedisService;
  }

  it('without Redis, keeps the cap in process, says so once, and never hangs', async () => {
    for (const reachable of [true, false]) {
      warn.mockClear();
      const cap = new SharedRateCap(brokenRedis(reachable), 'ratelimit', 50);
      const started = performance.now();
      const done: number[] = [];
      await Promise.all([0, 1, 2, 3].map(() => cap.run(() => Promise.resolve(done.push(performance.now() - started)))));
      expect(done).toHaveLength(4);
      expect(done[3]).toBeGreaterThanOrEqual(3 * 20);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('per replica');
    }
  });

  it('holds every later call off for a 429 with Retry-After, even without Redis', async () => {
    const cap = new SharedRateCap(brokenRedis(false), 'ratelimit', 1000);
    const tooMany = new OutboundError('service', 'P1 GET /projects', 'rate_limited', 429, '', 300);
    await expect(cap.run(() => Promise.reject(tooMany))).rejects.toBe(tooMany);
    const started = performance.now();
    await cap.run(() => Promise.resolve());
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});
