import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { redisConnection } from './redis-connection.js';

/**
 * The connection for what replicas share besides the queues: the service's rate cap and Zoho's access token, under
 * `QUEUE_PREFIX`. Unlike the queues' connection, a command gives up after a second, so that a caller can fall back to
 * what it knows in-process instead of waiting for Redis to come back.
 */
@Injectable()
export class SharedRedisService implements OnApplicationShutdown {
  readonly client: Redis;
  private readonly prefix: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.prefix = config.queuePrefix;
    const options = redisConnection(config.redisUrl) as Record<string, unknown>;
    this.client = new Redis({ ...options, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
    this.client.on('error', () => undefined); // each caller sees its command fail and falls back
  }

  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /** False while the connection is known to be down: the caller falls back at once rather than after the time-out. */
  get reachable(): boolean {
    return ['ready', 'connect', 'connecting'].includes(this.client.status);
  }

  onApplicationShutdown(): void {
    this.client.disconnect();
  }
}
