import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf, validateSync } from 'class-validator';
import { fieldErrors, type FieldError } from '../../common/validation-errors.js';
import { RECORD_MODULES, type RecordModule } from '../../service-api/service-api.types.js';
import { NO_CONTROL_OR_QUOTE } from '../../http/file-names.js';
import { NOT_A_DOT_SEGMENT } from '../../http/path-segments.js';
import type { MappingCrm } from '../mapping.row.js';

/**
 * Ids arrive as strings, or as JSON numbers (exact: the body parser turns integers beyond 2^53 into strings, so a
 * number here is a safe integer); both become the decimal string. Blank values (a CSV's unused columns, null) count
 * as absent.
 */
const idText = ({ value }: { value: unknown }): unknown => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  return value;
};

const DIGITS = /^\d{1,40}$/;
/** A project id as the service writes it: its events carry `7`, never `007`, and C1 sends it as a bare JSON integer. */
const CANONICAL_DIGITS = /^(?:0|[1-9]\d{0,39})$/;

/** A mapping to create: the columns of the CSV import, also the body (or `items[]`) of `POST /api/mappings`. */
export class MappingInputDto {
  @ApiProperty({ enum: ['appointment', 'record'] })
  @Transform(idText)
  @IsDefined({ message: 'crm is required (appointment or record)' })
  @IsIn(['appointment', 'record'], { message: 'crm must be appointment or record' })
  crm: MappingCrm;

  @ApiPropertyOptional({ description: 'Required when crm is appointment; empty otherwise.', example: 'APT-1001' })
  @Transform(idText)
  @ValidateIf((o: MappingInputDto) => o.crm === 'appointment' || o.appointment_id !== undefined)
  @IsDefined({ message: 'appointment_id is required when crm is appointment' })
  @IsString({ message: 'appointment_id must be a string' })
  @MaxLength(200, { message: 'appointment_id must be at most 200 characters' })
  @Matches(NO_CONTROL_OR_QUOTE, { message: 'appointment_id must not contain quotes or control characters' })
  @Matches(NOT_A_DOT_SEGMENT, { message: 'appointment_id must not be . or .. (it goes into the CRM request paths)' })
  appointment_id?: string;

  @ApiPropertyOptional({ enum: RECORD_MODULES, description: 'Required when crm is record; empty otherwise.' })
  @Transform(idText)
  @ValidateIf((o: MappingInputDto) => o.crm === 'record' || o.record_crm_module !== undefined)
  @IsDefined({ message: 'record_crm_module is required when crm is record' })
  @IsIn(RECORD_MODULES, { message: `record_crm_module must be one of ${RECORD_MODULES.join(', ')}` })
  record_crm_module?: RecordModule;

  @ApiPropertyOptional({ description: 'Required when crm is record (a string of digits); empty otherwise.', example: '4150868000004357001' })
  @Transform(idText)
  @ValidateIf((o: MappingInputDto) => o.crm === 'record' || o.record_crm_record_id !== undefined)
  @IsDefined({ message: 'record_crm_record_id is required when crm is record' })
  @IsString({ message: 'record_crm_record_id must be a string of digits' })
  @Matches(DIGITS, { message: 'record_crm_record_id must be a string of digits' })
  record_crm_record_id?: string;

  @ApiProperty({ description: "The service's project id, a string of digits (a JSON number is accepted).", example: '36029621652695017' })
  @Transform(idText)
  @IsDefined({ message: 'project_id is required' })
  @IsString({ message: 'project_id must be a string of digits' })
  @Matches(DIGITS, { message: 'project_id must be a string of digits' })
  @Matches(CANONICAL_DIGITS, { message: 'project_id must be a string of digits without leading zeros' })
  project_id: string;

  @ApiPropertyOptional({ description: "The CRM record's name as a picker showed it (kept for the screens).", example: 'Ana Ruiz' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() || undefined : (value ?? undefined)))
  @IsOptional()
  @IsString({ message: 'crm_record_name must be a string' })
  @MaxLength(300, { message: 'crm_record_name must be at most 300 characters' })
  crm_record_name?: string;
}

/** A validated mapping input, ids as exact strings. */
export interface MappingInput {
  crm: MappingCrm;
  appointmentId: string | null;
  recordCrmModule: RecordModule | null;
  recordCrmRecordId: string | null;
  projectId: string;
  /** The CRM record's name when the caller knows it (a picker); null: read from the CRM when first shown. */
  crmRecordName?: string | null;
}

/** A refusal: its text, and the same failures with their fields and stable codes (docs/operations.md "Codes"). */
export type ParsedMappingInput = { ok: true; input: MappingInput } | { ok: false; error: string; errors: FieldError[] };

const refusal = (errors: FieldError[]): ParsedMappingInput => ({ ok: false, error: errors.map((e) => e.message).join('; '), errors });

/**
 * Validates one mapping input (a JSON item or a CSV row). Used item by item rather than through the global
 * ValidationPipe, so that a batch or an import can keep its good items and name the bad ones.
 */
export function parseMappingInput(raw: unknown): ParsedMappingInput {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: 'a mapping must be a JSON object', errors: [] };
  const dto = plainToInstance(MappingInputDto, raw);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length > 0) return refusal(fieldErrors(errors, Infinity).map(unknownFieldWords));
  if (dto.crm === 'appointment' && (dto.record_crm_module !== undefined || dto.record_crm_record_id !== undefined)) {
    const message = 'record_crm_module and record_crm_record_id must be empty when crm is appointment';
    return refusal([{ field: dto.record_crm_module !== undefined ? 'record_crm_module' : 'record_crm_record_id', code: 'not_for_this_crm', message }]);
  }
  if (dto.crm === 'record' && dto.appointment_id !== undefined) {
    return refusal([{ field: 'appointment_id', code: 'not_for_this_crm', message: 'appointment_id must be empty when crm is record' }]);
  }
  return {
    ok: true,
    input: {
      crm: dto.crm,
      appointmentId: dto.appointment_id ?? null,
      recordCrmModule: dto.record_crm_module ?? null,
      recordCrmRecordId: dto.record_crm_record_id ?? null,
      projectId: dto.project_id,
      crmRecordName: dto.crm_record_name ?? null,
    },
  };
}

/** class-validator's "property x should not exist" says it in the import's words. */
const unknownFieldWords = (e: FieldError): FieldError => (e.code === 'whitelistValidation' ? { ...e, message: `unknown field ${e.field}` } : e);
