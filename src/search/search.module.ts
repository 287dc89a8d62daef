import { Module } from '@nestjs/common';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { CrmMetadataController } from './crm-metadata.controller.js';
import { SearchLimitGuard } from './search-limit.guard.js';
import { SearchController } from './search.controller.js';
import { SearchService } from './search.service.js';

/** The pickers' searches: projects (P5) and records of either CRM. Above both CRM modules, whose clients it asks. */
@Module({
  imports: [ProjectsModule, AppointmentCrmModule, RecordCrmModule, QueuesModule],
  controllers: [SearchController, CrmMetadataController],
  providers: [SearchService, SearchLimitGuard],
})
export class SearchModule {}
