import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { MaintenanceTasksService } from '../queues/maintenance.service.js';
import type { SharedRedisService } from '../queues/shared-redis.service.js';
import type { RelayRecoveryService } from './relay-recovery.service.js';
import { RedisLossWatcher } from './redis-loss.watcher.js';

/**
 * A Redis that runs each command, but whose answer to a SET can be lost on the way back, as ioredis's
 * `commandTimeout` loses it on a loaded machine: the command rejects while Redis has run it.
 */
class Redis {
  readonly keys = new Map<string, string>();
  loseNextAnswer = false;
  readonly set = jest.fn(async (key: string, value: string, nx: 'NX') => {
    expect(nx).toBe('NX');
    const done = this.keys.has(key) ? null : (this.keys.set(key, value), 'OK');
    if (this.loseNextAnswer) {
      this.loseNextAnswer = false;
      throw new Error('Command timed out');
    }
    return done;
  });
  readonly get = jest.fn(async (key: string) => this.keys.get(key) ?? null);
  readonly del = jest.fn(async (key: string) => Number(this.keys.delete(key)));
}

describe('RedisLossWatcher', () => {
  let redis: Redis;
  let schedule: jest.Mock<() => Promise<void>>;
  let recover: jest.Mock<() => Promise<{ deliveries: number; actions: number }>>;
  let watcher: RedisLossWatcher;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    redis = new Redis();
    schedule = jest.fn(async () => undefined);
    recover = jest.fn(async () => ({ deliveries: 0, actions: 0 }));
    const shared = { client: redis, reachable: true, key: (...parts: string[]) => ['prefix', ...parts].join(':') };
    watcher = new RedisLossWatcher(
      shared as unknown as SharedRedisService,
      { schedule } as unknown as MaintenanceTasksService,
      { recover } as unknown as RelayRecoveryService,
    );
  });

  it('recovers when the marker is gone after its first look, and not while it stays', async () => {
    expect(await watcher.check()).toBe(false); // the first look sets it: the start-up recovery's concern
    expect(await watcher.check()).toBe(false);
    redis.keys.clear();
    expect(await watcher.check()).toBe(true);
    expect(schedule).toHaveBeenCalledTimes(1);
    expect(recover).toHaveBeenCalledTimes(1);
    expect(await watcher.check()).toBe(false);
  });

  it('looks once at start-up, before it serves: a loss right after start is recovered', async () => {
    await watcher.onApplicationBootstrap();
    watcher.onApplicationShutdown();
    expect(redis.keys.has('prefix:redis-marker')).toBe(true);
    redis.keys.clear();
    expect(await watcher.check()).toBe(true);
    expect(recover).toHaveBeenCalledTimes(1);
  });

  it('still recovers when the answer to the SET that found the marker gone was lost (Redis ran it)', async () => {
    await watcher.check();
    redis.keys.clear();
    redis.loseNextAnswer = true;
    expect(await watcher.check()).toBe(false);
    expect(redis.keys.has('prefix:redis-marker')).toBe(true); // set by the look whose answer was lost
    expect(await watcher.check()).toBe(true);
    expect(recover).toHaveBeenCalledTimes(1);
    expect(await watcher.check()).toBe(false);
  });

  it('does not recover when a lost answer was for a SET that found the marker in place', async () => {
    await watcher.check();
    redis.loseNextAnswer = true;
    expect(await watcher.check()).toBe(false);
    expect(await watcher.check()).toBe(false);
    expect(recover).not.toHaveBeenCalled();
  });
});
