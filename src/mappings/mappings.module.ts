import { Global, Module } from '@nestjs/common';
import { MappingLookup } from './mapping-lookup.service.js';

@Global()
@Module({ providers: [MappingLookup], exports: [MappingLookup] })
export class MappingsModule {}
