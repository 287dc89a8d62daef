import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { RECORD_MODULES, type RecordModule } from '../service-api/service-api.types.js';

/** The Zoho modules a picker searches: those a project maps to, and Products (the revenue settings' fallback product). */
export const SEARCH_MODULES = [...RECORD_MODULES, 'Products'] as const;
export type SearchModuleName = RecordModule | 'Products';

const trimmed = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class ProjectSearchQueryDto {
  @ApiProperty({ description: "Part of the project's name (P5 `project_name`).", example: 'Ruiz' })
  @Transform(trimmed)
  @IsDefined({ message: 'q is required' })
  @IsString({ message: 'q must be a string' })
  @MinLength(1, { message: 'q must not be empty' })
  @MaxLength(200, { message: 'q must be at most 200 characters' })
  q: string;
}

export class CrmRecordSearchQueryDto {
  @ApiProperty({ enum: ['appointment', 'record'] })
  @IsDefined({ message: 'crm is required (appointment or record)' })
  @IsIn(['appointment', 'record'], { message: 'crm must be appointment or record' })
  crm: 'appointment' | 'record';

  @ApiPropertyOptional({
    enum: SEARCH_MODULES,
    description: 'Required when crm is record (the Zoho module to search; Products for the fallback product of the revenue settings).',
  })
  @IsOptional()
  @IsIn(SEARCH_MODULES, { message: `module must be one of ${SEARCH_MODULES.join(', ')}` })
  module?: SearchModuleName;

  @ApiProperty({ description: 'Words of the record (a name, an e-mail, a job number); Zoho wants at least 2 characters.', example: 'Ana' })
  @Transform(trimmed)
  @IsDefined({ message: 'q is required' })
  @IsString({ message: 'q must be a string' })
  @MinLength(2, { message: 'q must be at least 2 characters' })
  @MaxLength(100, { message: 'q must be at most 100 characters' })
  q: string;
}

export class ProjectHitView {
  @ApiProperty({ example: '36029621652695017' }) id: string;
  @ApiProperty({ example: 'Ruiz kitchen' }) name: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ana Ruiz' }) customer_name: string | null;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-20T10:00:00' }) created_at: string | null;
}

export class CrmRecordHitView {
  @ApiProperty({ example: '4150868000004357001' }) id: string;
  @ApiProperty({ nullable: true, enum: SEARCH_MODULES, description: 'The Zoho module; null for an appointment.' }) module: SearchModuleName | null;
  @ApiProperty({ nullable: true, type: String, description: "The appointment's customer, or the record's name." }) name: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'What else tells it apart: job number, e-mail, phone, date, stage.' }) detail: string | null;
}
