import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { MetricsService } from './metrics.service.js';
import { ReadinessRegistry } from './readiness.registry.js';
import { RedisProbe } from './redis-probe.js';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false })],
  controllers: [HealthController],
  providers: [MetricsService, ReadinessRegistry, RedisProbe],
  exports: [MetricsService, ReadinessRegistry],
})
export class HealthModule {}
