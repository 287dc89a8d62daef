import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsISO8601, IsOptional, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../common/pagination.js';
import { SyncLogFiltersDto } from './sync-logs.dto.js';
import { WEBHOOK_ENDPOINTS } from '../webhooks/inbox.row.js';

export const OVERVIEW_WINDOWS = { '24h': 24 * 3600_000, '7d': 7 * 24 * 3600_000 } as const;
export type OverviewWindow = keyof typeof OVERVIEW_WINDOWS;

/** Every status a delivery can be listed by; `duplicate` is not a status of its own (see DeliveriesQueryDto). */
export const DELIVERY_STATUSES = ['received', 'routed', 'ignored', 'failed', 'duplicate'] as const;

export class OverviewQueryDto {
  @ApiPropertyOptional({ enum: Object.keys(OVERVIEW_WINDOWS), default: '24h', description: 'The period the counts and the hourly series cover.' })
  @IsOptional()
  @IsIn(Object.keys(OVERVIEW_WINDOWS), { message: 'window must be 24h or 7d' })
  window?: OverviewWindow;
}

const PROJECT_ID_MESSAGE = 'project_id must be a string of digits';

export class DeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: WEBHOOK_ENDPOINTS })
  @IsOptional()
  @IsIn(WEBHOOK_ENDPOINTS, { message: `endpoint must be one of ${WEBHOOK_ENDPOINTS.join(', ')}` })
  endpoint?: (typeof WEBHOOK_ENDPOINTS)[number];

  @ApiPropertyOptional({ example: 'drawing.created' })
  @IsOptional()
  @MaxLength(100, { message: 'event must be at most 100 characters' })
  event?: string;

  @ApiPropertyOptional({
    enum: DELIVERY_STATUSES,
    description: '`duplicate`: deliveries the service sent again within the dedupe window (counted on the stored delivery), whatever their status.',
  })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: (typeof DELIVERY_STATUSES)[number];

  @ApiPropertyOptional({ example: '36029621652695017', description: 'The project routing found the delivery to concern.' })
  @IsOptional()
  @MaxLength(64, { message: 'project_id must be at most 64 characters' })
  @Matches(/^\d+$/, { message: PROJECT_ID_MESSAGE })
  project_id?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only deliveries received at or after this time (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z' })
  since?: string;
}

/** The sync log list's filters, `status=failed` implied (any other status is refused). */
export class BulkRetryQueryDto extends SyncLogFiltersDto {
  @ApiPropertyOptional({ enum: ['failed'], description: 'Implied; only failed entries are retried.' })
  @IsOptional()
  @IsIn(['failed'], { message: 'only failed entries can be retried: status must be failed or left out' })
  status?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false', description: 'Count what would be retried, change nothing.' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' || value === true ? true : value === 'false' || value === false ? false : value))
  @IsIn([true, false], { message: 'dry_run must be true or false' })
  dry_run?: boolean;
}
