import { Module } from '@nestjs/common';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { AutomationSettingsModule } from '../crm-settings/automation-settings.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
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
export class SuggestionsModule {}
