import type { ConnectionOptions } from 'bullmq';

/** ioredis options from a redis:// URL, with the db index of its path honoured (`redis://host:6379/3`). */
export function redisConnection(redisUrl: string): ConnectionOptions {
  const url = new URL(redisUrl);
  const db = Number(url.pathname.replace(/^\//, '') || 0);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    db: Number.isInteger(db) ? db : 0,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    // Workers need null (blocking commands must not give up); reconnection is retried forever, capped at 2 s apart.
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(times * 200, 2_000),
  };
}
