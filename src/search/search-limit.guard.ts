import { type CanActivate, type ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { AdminRequest } from '../auth/admin-auth.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { WindowCounter } from '../queues/window-counter.js';

/**
 * Searches per user (the admin token's name): each one spends the service's shared rate cap (P5) or the CRM's daily
 * credits (Zoho's search), so one person's script cannot use them up. `SEARCH_MAX_PER_USER` a window of
 * `SEARCH_WINDOW_SECONDS`, counted on Redis across replicas; past it, 429 with Retry-After until the window ends. Runs
 * after AdminAuthGuard (app-wide guards first), which names the user.
 */
@Injectable()
export class SearchLimitGuard implements CanActivate {
  private readonly searches: WindowCounter;
  private readonly maxPerUser: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: SharedRedisService) {
    this.maxPerUser = config.search.maxPerUser;
    this.searches = new WindowCounter(redis, 'searches', config.search.windowSeconds);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const user = http.getRequest<AdminRequest>().adminActor?.name;
    if (!user) return true; // AdminAuthGuard refused it already
    const { count, secondsLeft } = await this.searches.count(user, true);
    if (count <= this.maxPerUser) return true;
    http.getResponse<FastifyReply>().header('retry-after', String(secondsLeft));
    throw new HttpException(
      { statusCode: 429, message: `${user} made ${this.maxPerUser} searches in this window (SEARCH_MAX_PER_USER); try again in ${secondsLeft} s` },
      429,
    );
  }
}
