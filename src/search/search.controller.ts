import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { SearchLimitGuard } from './search-limit.guard.js';
import { ApiItemsResponse } from '../common/pagination.js';
import { CrmRecordHitView, CrmRecordSearchQueryDto, ProjectHitView, ProjectSearchQueryDto } from './search.dto.js';
import { SearchService } from './search.service.js';

/**
 * The pickers' searches, for operators (who make mappings): each one reads a CRM or the service on crm-sync's
 * credentials, beyond what a viewer's own CRM permissions may show, and spends shared rate caps and credits.
 */
@ApiTags('search')
@AdminRoute()
@RequiresRole('operator')
@UseGuards(SearchLimitGuard)
@ApiTooManyRequestsResponse({ description: 'The user made SEARCH_MAX_PER_USER searches in this window; Retry-After says when to try again.' })
@Controller('api/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get('projects')
  @ApiOperation({
    summary: "Projects whose name contains q (the service's P5), newest first, at most 20.",
    description: "Each call is one P5 call, within the service's shared rate cap; the projects found are kept, so their names show elsewhere.",
  })
  @ApiItemsResponse(ProjectHitView)
  @ApiBadRequestResponse({ description: 'q is missing or too long.' })
  @ApiBadGatewayResponse({ description: 'The service failed; the message says why.' })
  async projects(@Query() query: ProjectSearchQueryDto): Promise<{ items: ProjectHitView[] }> {
    return { items: await this.search.projectsNamed(query.q) };
  }

  @Get('crm-records')
  @ApiOperation({
    summary: "Records of a CRM matching q, by that CRM's own search, at most 20.",
    description: 'Appointment CRM: `GET /appointments?q=`. Zoho CRM: `GET /crm/v8/{module}/search?word=` (module required).',
  })
  @ApiItemsResponse(CrmRecordHitView)
  @ApiBadRequestResponse({ description: 'crm, module or q is missing or invalid; the message names the field.' })
  @ApiConflictResponse({ description: 'That CRM is not connected (`code: "not_connected"`).' })
  @ApiBadGatewayResponse({ description: 'The CRM failed; the message says why.' })
  async crmRecords(@Query() query: CrmRecordSearchQueryDto): Promise<{ items: CrmRecordHitView[] }> {
    return { items: await this.search.crmRecords(query.crm, query.module, query.q) };
  }
}
