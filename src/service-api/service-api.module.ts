import { Global, Module } from '@nestjs/common';
import { ServiceApiClient } from './service-api.client.js';

@Global()
@Module({ providers: [ServiceApiClient], exports: [ServiceApiClient] })
export class ServiceApiModule {}
