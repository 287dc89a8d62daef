import { Module, type OnModuleInit } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionRegistryService } from '../sync-log/action-registry.service.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { TargetNamesService } from '../sync-log/target-names.service.js';
import { MappingActionsService } from './mapping-actions.service.js';
import { MappingImportService } from './mapping-import.service.js';
import { MappingLookupService } from './mapping-lookup.service.js';
import { MappingNamesService } from './mapping-names.service.js';
import { MappingRepository } from './mapping.repository.js';
import { MappingsController } from './mappings.controller.js';
import { MappingsService } from './mappings.service.js';
import { MappingDeliveriesService } from './mapping-deliveries.service.js';

/**
 * Mappings and their association with the service. Other modules use MappingLookupService (where a project's pushes go)
 * and MappingsService (`associatePending` for the reconciliation); MappingRepository holds every statement on `mapping`.
 */
@Module({
  imports: [SyncLogModule, ServiceApiModule, ProjectsModule],
  controllers: [MappingsController],
  providers: [
    MappingRepository,
    MappingLookupService,
    MappingNamesService,
    MappingsService,
    MappingImportService,
    MappingActionsService,
    MappingDeliveriesService,
  ],
  exports: [MappingRepository, MappingLookupService, MappingNamesService, MappingsService],
})
export class MappingsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistryService,
    private readonly associations: MappingActionsService,
    private readonly deliveries: MappingDeliveriesService,
    private readonly targetNames: TargetNamesService,
    private readonly repository: MappingRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.associations, this.deliveries);
    this.targetNames.register((targets) => this.repository.recordNamesOf(targets));
  }
}
