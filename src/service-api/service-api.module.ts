import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ServiceApiClient } from './service-api.client.js';

@Module({ imports: [ConnectionsModule, ObservabilityModule, QueuesModule], providers: [ServiceApiClient], exports: [ServiceApiClient] })
export class ServiceApiModule {}
