import { Inject, Injectable } from '@nestjs/common';
import { PerUserLimitGuard } from '../auth/per-user-limit.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';

/**
 * Reads of a Salesforce org's table of needs per user, counted apart from the searches but with their limit: one that
 * is not answered from the kept report costs the org's daily API allowance 4 to 7 describe calls (per-user-limit.guard.ts).
 */
@Injectable()
export class SchemaLimitGuard extends PerUserLimitGuard {
  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: SharedRedisService) {
    super(config, redis, 'schema-reads', "reads of the org's table of needs");
  }
}
