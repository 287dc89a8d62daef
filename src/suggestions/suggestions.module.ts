import { Module, type OnModuleInit } from '@nestjs/common';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { AutomationSettingsModule } from '../crm-settings/automation-settings.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { ActionRegistryService } from '../actions/action-registry.service.js';
import { ActionsModule } from '../actions/actions.module.js';
import { CandidateSearchService } from './candidate-search.service.js';
import { SuggestionActionsService } from './suggestion-actions.service.js';
import { SuggestionRepository } from './suggestion.repository.js';
import { SuggestionsController } from './suggestions.controller.js';
import { SuggestionsService } from './suggestions.service.js';

/** Suggested mappings (docs/mappings.md): the looks for a project's records, their review, `auto_map`. */
@Module({
  imports: [AutomationSettingsModule, ConnectionsModule, MappingsModule, ProjectsModule, ActionsModule, AppointmentCrmModule, RecordCrmModule],
  controllers: [SuggestionsController],
  providers: [SuggestionRepository, CandidateSearchService, SuggestionsService, SuggestionActionsService],
})
export class SuggestionsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistryService,
    private readonly actions: SuggestionActionsService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.actions);
  }
}
