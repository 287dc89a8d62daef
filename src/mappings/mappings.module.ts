import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { ActionRegistry } from '../sync-log/action-registry.js';
import { AssociateHandler } from './associate.handler.js';
import { MappingImportService } from './mapping-import.service.js';
import { MappingLookup } from './mapping-lookup.service.js';
import { MappingsController } from './mappings.controller.js';
import { MappingsService } from './mappings.service.js';
import { ProjectCreatedAssociation } from './project-created.handler.js';
import { WebhookEventHandlers } from '../webhooks/event-handlers.js';

/**
 * Mappings and their association with the service. Other modules use MappingLookup (where a project's pushes go)
 * and MappingsService (`associatePending` for `project.created` and the reconciliation).
 */
@Global()
@Module({
  controllers: [MappingsController],
  providers: [MappingLookup, MappingsService, MappingImportService, AssociateHandler, ProjectCreatedAssociation],
  exports: [MappingLookup, MappingsService],
})
export class MappingsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly associate: AssociateHandler,
    private readonly projectCreated: ProjectCreatedAssociation,
    private readonly webhookHandlers: WebhookEventHandlers,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.associate, this.projectCreated);
    this.webhookHandlers.register(this.projectCreated);
  }
}
