import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ProjectsModule } from '../projects/projects.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { MappingActionsService } from './mapping-actions.service.js';
import { MappingImportService } from './mapping-import.service.js';
import { MappingLookupService } from './mapping-lookup.service.js';
import { CrmLinksService } from './crm-links.service.js';
import { MappingNamesService } from './mapping-names.service.js';
import { MappingRepository } from './mapping.repository.js';
import { MappingsController } from './mappings.controller.js';
import { MappingsService } from './mappings.service.js';
import { MappingDeliveriesService } from './mapping-deliveries.service.js';
import { TargetNamesService } from './target-names.service.js';

/**
 * Mappings and their association with the service. Other modules use MappingLookupService (where a project's pushes go)
 * and MappingsService (`associatePending` for the reconciliation); MappingRepository holds every statement on `mapping`.
 */
@Module({
  imports: [DiscoveryModule, ActionsModule, ServiceApiModule, ProjectsModule],
  controllers: [MappingsController],
  providers: [
    MappingRepository,
    MappingLookupService,
    MappingNamesService,
    MappingsService,
    MappingImportService,
    MappingActionsService,
    MappingDeliveriesService,
    TargetNamesService,
    CrmLinksService,
  ],
  exports: [MappingRepository, MappingLookupService, MappingNamesService, MappingsService, TargetNamesService, CrmLinksService],
})
export class MappingsModule {}
