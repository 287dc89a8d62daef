import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MetricsService } from './metrics.service.js';
import { ReadinessRegistry } from './readiness.registry.js';

/** What modules report about themselves: Prometheus metrics and readiness checks. */
@Module({ imports: [DiscoveryModule], providers: [MetricsService, ReadinessRegistry], exports: [MetricsService, ReadinessRegistry] })
export class ObservabilityModule {}
