import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '../auth/admin-auth.guard.js';
import { OverviewQueryDto } from './operations.dto.js';
import { OperationsService } from './operations.service.js';
import { OverviewView } from './operations.view.js';

@ApiTags('operations')
@AdminRoute()
@Controller('api/overview')
export class OverviewController {
  constructor(private readonly operations: OperationsService) {}

  @Get()
  @ApiOperation({
    summary: 'The dashboard: actions by status and kind, success rate, finished actions per hour, oldest queued, deliveries waiting, connections.',
    description:
      'Status counts and the hourly series count actions by their last change (a finished action by when it finished); kind counts by creation. ' +
      'Hours are UTC, from the hour the window starts in to the current one, zero-filled.',
  })
  @ApiOkResponse({ type: OverviewView })
  @ApiBadRequestResponse({ description: 'window is not 24h or 7d.' })
  overview(@Query() query: OverviewQueryDto): Promise<OverviewView> {
    return this.operations.overview(query.window ?? '24h');
  }
}
