import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { MetricsService } from '../../observability/metrics.service.js';
import { SharedRedisService } from '../../queues/shared-redis.service.js';

/** What a Zoho call is for, as the credit budget (docs/zoho-crm.md "Credits") counts it. */
export type ZohoCallKind = 'records_read' | 'search' | 'coql' | 'write' | 'metadata' | 'org' | 'users' | 'token';

/** The day's count is kept two days past its day, so yesterday's total can still be read after midnight. */
const DAY_KEY_TTL_SECONDS = 3 * 86_400;

/** The kind of one API call, from its endpoint (`METHOD /path` as written beside each call in the client). */
export function zohoCallKind(endpoint: string): ZohoCallKind {
  const [method, path = ''] = endpoint.split(' ', 2);
  if (path === '/coql') return 'coql';
  if (path.startsWith('/org')) return 'org';
  if (path.startsWith('/users')) return 'users';
  if (path.startsWith('/settings/')) return 'metadata';
  if (method !== 'GET') return 'write';
  return /\/search\b/.test(path) ? 'search' : 'records_read';
}

export interface ZohoCallsToday {
  /** The UTC day counted, `YYYY-MM-DD`. */
  day: string;
  /** Calls every replica made that day; null when Redis could not be read. */
  calls: number | null;
  allowance: number;
}

/**
 * Counts every Zoho call: by kind in the metric `crm_sync_zoho_calls_total`, and the day's total in Redis (one key per
 * UTC day under `QUEUE_PREFIX`), so that it survives restarts and every replica adds to the same figure. A Redis that
 * does not answer loses the call from the day's total, never the call itself.
 */
@Injectable()
export class ZohoUsage {
  private readonly calls: Counter<'kind'>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
    private readonly shared: SharedRedisService,
  ) {
    this.calls = new Counter({
      name: 'crm_sync_zoho_calls_total',
      help: "Calls to Zoho (API and accounts server) by kind: records_read, search, coql, write, metadata, org, users, token. A try that is retried counts again, as Zoho's credits do.",
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
    });
  }

  count(kind: ZohoCallKind): void {
    this.calls.inc({ kind });
    if (!this.shared.reachable) return;
    const key = this.dayKey(new Date());
    this.shared.client
      .multi()
      .incr(key)
      .expire(key, DAY_KEY_TTL_SECONDS)
      .exec()
      .catch(() => undefined);
  }

  async today(now = new Date()): Promise<ZohoCallsToday> {
    const day = now.toISOString().slice(0, 10);
    let calls: number | null = null;
    try {
      if (this.shared.reachable) calls = Number((await this.shared.client.get(this.dayKey(now))) ?? 0);
    } catch {
      calls = null;
    }
    return { day, calls, allowance: this.config.zohoDailyCallAllowance };
  }

  private dayKey(at: Date): string {
    return this.shared.key('zoho-calls', at.toISOString().slice(0, 10));
  }
}
