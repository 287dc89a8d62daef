import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, Matches, MaxLength } from 'class-validator';
import { SYNC_STATUSES, type SyncStatus } from '../sync-log/sync-log.row.js';
import { PageQueryDto } from '../common/pagination.js';

/** The filters of the sync log that the list and the bulk retry share. */
export class SyncLogFiltersDto {
  @ApiPropertyOptional({ example: 'associate' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'kind must be an action kind such as associate or push_drawings' })
  kind?: string;

  @ApiPropertyOptional({ example: '36029621652695017' })
  @IsOptional()
  @MaxLength(64, { message: 'project_id must be at most 64 characters' })
  @Matches(/^\d+$/, { message: 'project_id must be a string of digits' })
  project_id?: string;

  @ApiPropertyOptional({ enum: ['appointment', 'record'] })
  @IsOptional()
  @IsIn(['appointment', 'record'], { message: 'crm must be appointment or record' })
  crm?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only entries created at or after this time (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z' })
  since?: string;
}

export class SyncLogQueryDto extends IntersectionType(PageQueryDto, SyncLogFiltersDto) {
  @ApiPropertyOptional({ enum: SYNC_STATUSES })
  @IsOptional()
  @IsIn(SYNC_STATUSES, { message: `status must be one of ${SYNC_STATUSES.join(', ')}` })
  status?: SyncStatus;
}
