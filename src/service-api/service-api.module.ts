import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../health/observability.module.js';
import { ServiceApiClient } from './service-api.client.js';

@Module({ imports: [ObservabilityModule], providers: [ServiceApiClient], exports: [ServiceApiClient] })
export class ServiceApiModule {}
