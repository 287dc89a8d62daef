import { Module } from '@nestjs/common';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ProjectRepository } from './project.repository.js';
import { ProjectsService } from './projects.service.js';

/** What crm-sync knows of the service's projects (names, customers, job numbers); ProjectRepository owns `project`. */
@Module({
  imports: [ServiceApiModule],
  providers: [ProjectRepository, ProjectsService],
  exports: [ProjectsService],
})
export class ProjectsModule {}
