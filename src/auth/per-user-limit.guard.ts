import { type CanActivate, type ExecutionContext, HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import type { SharedRedisService } from '../queues/shared-redis.service.js';
import { WindowCounter } from '../queues/window-counter.js';
import type { AdminRequest } from './admin-auth.guard.js';

/**
 * Requests per user (the admin token's name) to routes that spend what others share (the service's rate cap, a CRM's
 * daily API allowance): `SEARCH_MAX_PER_USER` a window of `SEARCH_WINDOW_SECONDS`, counted on Redis across replicas
 * under `<QUEUE_PREFIX>:<counter>:<user>`, one count per kind of route; past it, 429 with Retry-After until the window
 * ends. Runs after AdminAuthGuard (app-wide guards first), which names the user.
 */
export abstract class PerUserLimitGuard implements CanActivate {
  private readonly requests: WindowCounter;
  private readonly maxPerUser: number;

  protected constructor(
    config: AppConfig,
    redis: SharedRedisService,
    counter: string,
    /** What is counted, in the 429's message: `searches`. */
    private readonly what: string,
  ) {
    this.maxPerUser = config.search.maxPerUser;
    this.requests = new WindowCounter(redis, counter, config.search.windowSeconds);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const user = http.getRequest<AdminRequest>().adminActor?.name;
    if (!user) return true; // AdminAuthGuard refused it already
    const { count, secondsLeft } = await this.requests.count(user, true);
    if (count <= this.maxPerUser) return true;
    http.getResponse<FastifyReply>().header('retry-after', String(secondsLeft));
    throw new HttpException(
      { statusCode: 429, message: `${user} made ${this.maxPerUser} ${this.what} in this window (SEARCH_MAX_PER_USER); try again in ${secondsLeft} s` },
      429,
    );
  }
}
