import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import type { AdminActor } from '../config/roles.js';
import { BulkRetryQueryDto } from './operations.dto.js';
import type { FailedFilter } from '../sync-log/sync-log.repository.js';
import { BULK_RETRY_CAP, OperationsService } from './operations.service.js';

const filterOf = (query: BulkRetryQueryDto): FailedFilter => ({
  kind: query.kind,
  projectId: query.project_id,
  crm: query.crm,
  since: query.since ? new Date(query.since) : undefined,
});

/** Retrying many failed sync log entries at once (the single retry is `POST /api/sync-logs/:id/retry`). */
@ApiTags('sync-logs')
@AdminRoute()
@Controller('api/sync-logs')
export class BulkRetryController {
  constructor(private readonly operations: OperationsService) {}

  @Get('count')
  @ApiOperation({ summary: 'How many failed entries match the filters, and how many one bulk retry would retry (the console asks before retrying).' })
  @ApiOkResponse({ description: '`{ matching, would_retry, cap }`' })
  @ApiBadRequestResponse({ description: 'A filter is invalid; the message names the field.' })
  count(@Query() query: BulkRetryQueryDto): Promise<{ matching: number; would_retry: number; cap: number }> {
    return this.operations.countRetryable(filterOf(query));
  }

  @Post('retry')
  @RequiresRole('operator')
  @HttpCode(200)
  @ApiOperation({
    summary: `Retries every failed entry matching the list's filters (status=failed implied), the oldest ${BULK_RETRY_CAP} per call.`,
    description: `\`dry_run=true\` only counts (as GET /api/sync-logs/count). \`more: true\` says that more than ${BULK_RETRY_CAP} matched: call again for the rest.`,
  })
  @ApiOkResponse({ description: '`{ retried, ids, cap, more }`, or with dry_run `{ matching, would_retry, cap }`' })
  @ApiBadRequestResponse({ description: 'A filter is invalid (a status other than failed included); the message names the field.' })
  retry(@Query() query: BulkRetryQueryDto, @Actor() actor: AdminActor): Promise<object> {
    const filter = filterOf(query);
    return query.dry_run ? this.operations.countRetryable(filter) : this.operations.retryFailed(filter, actor);
  }
}
