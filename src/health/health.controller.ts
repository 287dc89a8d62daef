import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DatabaseService } from '../database/database.service.js';
import { MetricsService } from '../observability/metrics.service.js';
import { ReadinessRegistry } from '../observability/readiness.registry.js';
import { RedisProbeService } from './redis-probe.service.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseService,
    private readonly redis: RedisProbeService,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: MetricsService,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process answers.' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: Postgres (schema migrated) and Redis reachable; 503 naming what is down.' })
  ready() {
    return this.health.check([
      () =>
        this.indicators
          .check('postgres')
          .attempt(() => this.database.ping())
          .withTimeout(2_500),
      () =>
        this.indicators
          .check('redis')
          .attempt(() => this.redis.ping())
          .withTimeout(2_500),
      ...this.readiness.entries().map(([name, check]) => async () => {
        const outcome = await check();
        const session = this.indicators.check(name);
        const data: Record<string, unknown> = outcome.message ? { message: outcome.message } : {};
        if (outcome.status === 'up') return session.up(data);
        return outcome.status === 'degraded' ? session.degraded(data) : session.down(data);
      }),
    ]);
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('cache-control', 'no-store')
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    const body = await this.metrics.registry.metrics();
    await reply.header('content-type', this.metrics.registry.contentType).send(body);
  }
}
