import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { RedisProbeService } from './redis-probe.service.js';

/** `/health`, `/health/ready` and `/metrics`. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false }), ObservabilityModule],
  controllers: [HealthController],
  providers: [RedisProbeService],
})
export class HealthModule {}
