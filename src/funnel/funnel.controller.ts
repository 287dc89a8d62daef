import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '../auth/admin-auth.guard.js';
import { FunnelQueryDto } from './funnel.dto.js';
import { FunnelService } from './funnel.service.js';
import { FunnelView } from './funnel.view.js';

@ApiTags('operations')
@AdminRoute()
@Controller('api/funnel')
export class FunnelController {
  constructor(private readonly funnel: FunnelService) {}

  @Get()
  @ApiOperation({
    summary:
      'Per CRM: records read, qualifying, projects created and mapped, drawings pushed, proposals exported, approved, written to the CRM, failed or waiting.',
    description:
      'Computed from what crm-sync stored (the sync log, the mappings, the reads’ hourly counts), never from calls to the CRMs. Each number carries ' +
      '`link`, the admin API query listing the items behind it; amounts are exact decimal text. See docs/operations.md, "The funnel".',
  })
  @ApiOkResponse({ type: FunnelView })
  @ApiBadRequestResponse({ description: 'window is not 24h, 7d or 30d, or crm not appointment or record.' })
  get(@Query() query: FunnelQueryDto): Promise<FunnelView> {
    return this.funnel.funnel(query.window ?? '7d', query.crm ?? null);
  }
}
