import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { redisConnection } from '../queues/redis-connection.js';

/** A connection of its own for readiness: it fails fast instead of queueing commands while Redis is away. */
@Injectable()
export class RedisProbeService implements OnApplicationShutdown {
  private readonly client: Redis;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const options = redisConnection(config.redisUrl) as Record<string, unknown>;
    this.client = new Redis({ ...options, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2_000 });
    this.client.on('error', () => undefined); // reported through ping()
  }

  async ping(): Promise<void> {
    if (this.client.status === 'wait' || this.client.status === 'end') await this.client.connect().catch(() => undefined);
    const answer = await this.client.ping();
    if (answer !== 'PONG') throw new Error(`unexpected answer ${answer}`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.client.disconnect();
  }
}
