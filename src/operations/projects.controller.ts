import { BadRequestException, Controller, Get, Param } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Actor, AdminRoute } from '../auth/admin-auth.guard.js';
import type { AdminActor } from '../config/roles.js';
import { viewFor } from '../http/redact-urls.js';
import { OperationsService } from './operations.service.js';
import { ProjectView } from './operations.view.js';

@ApiTags('operations')
@AdminRoute()
@Controller('api/projects')
export class ProjectsController {
  constructor(private readonly operations: OperationsService) {}

  @Get(':project_id')
  @ApiOperation({
    summary: 'One project: its mappings, its webhook deliveries (newest 100) and its actions (newest 200, chains linked by parent_id and grouped in chains).',
  })
  @ApiParam({ name: 'project_id', example: '36029621652695017', description: 'The exact decimal id.' })
  @ApiOkResponse({ type: ProjectView })
  @ApiNotFoundResponse({ description: 'crm-sync knows nothing of that project (no name kept, mapping, delivery or action): the service is not asked.' })
  @ApiBadRequestResponse({ description: 'project_id is not a string of digits.' })
  async project(@Param('project_id') projectId: string, @Actor() actor: AdminActor): Promise<ProjectView> {
    if (!/^\d{1,64}$/.test(projectId))
      throw new BadRequestException({ statusCode: 400, message: 'project_id must be a string of digits', error: 'Bad Request' });
    return viewFor(actor, await this.operations.project(projectId));
  }
}
