import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { PageQueryDto } from '../../common/pagination.js';
import type { MappingCrm, MappingStatus } from '../mapping.row.js';

export class MappingsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['appointment', 'record'] })
  @IsOptional()
  @IsIn(['appointment', 'record'], { message: 'crm must be appointment or record' })
  crm?: MappingCrm;

  @ApiPropertyOptional({ enum: ['pending', 'associated', 'failed'] })
  @IsOptional()
  @IsIn(['pending', 'associated', 'failed'], { message: 'status must be one of pending, associated, failed' })
  status?: MappingStatus;

  @ApiPropertyOptional({ example: '36029621652695017' })
  @IsOptional()
  @Matches(/^\d{1,40}$/, { message: 'project_id must be a string of digits' })
  project_id?: string;
}
