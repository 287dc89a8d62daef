import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service.js';
import { ReadinessRegistry } from './readiness.registry.js';

/** What modules report about themselves: Prometheus metrics and readiness checks. */
@Module({ providers: [MetricsService, ReadinessRegistry], exports: [MetricsService, ReadinessRegistry] })
export class ObservabilityModule {}
