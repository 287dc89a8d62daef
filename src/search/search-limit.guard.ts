import { Inject, Injectable } from '@nestjs/common';
import { PerUserLimitGuard } from '../auth/per-user-limit.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';

/**
 * Searches per user: each one spends the service's shared rate cap (P5) or the CRM's daily credits (Zoho's search), so
 * one person's script cannot use them up (per-user-limit.guard.ts).
 */
@Injectable()
export class SearchLimitGuard extends PerUserLimitGuard {
  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: SharedRedisService) {
    super(config, redis, 'searches', 'searches');
  }
}
