import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, MinLength, ValidateBy, ValidateIf } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { AMOUNT_MAX_DIGITS, isBoundedDecimal } from '../../domain/amounts.js';
import { NOT_A_DOT_SEGMENT } from '../../http/path-segments.js';
import { Nested } from './shape-check.js';

/**
 * Payload DTOs of the spec's events list. Ids arrive as strings here: the parser normalised them first.
 * A tolerant reader: only what makes a delivery's work impossible is refused (a refused delivery is lost after the
 * service's retries). Enum values the service may add, and nulls in fields no action needs, pass; tolerance.ts lists
 * them for the log and the metric.
 */

/**
 * An id of another system (an appointment, a Zoho record): any non-empty text but `.` and `..`, which would be
 * dot-segments in the CRMs' request paths (`PUT {base}/appointments/../sale`; RFC 3986 §5.2.4 removes them).
 */
const Id = () =>
  applyDecorators(
    MinLength(1, { message: '$property must be a non-empty id' }),
    Matches(NOT_A_DOT_SEGMENT, { message: '$property must be an id (not . or ..)' }),
  );
/** An id of the service: decimal digits, as it writes them (it goes into file names, URLs and SQL as is). */
const ServiceId = () => Matches(/^\d{1,40}$/, { message: '$property must be an id of the service (decimal digits)' });
/**
 * An amount: a JSON number, or the exact decimal text of one a double cannot hold (the parser keeps those as text),
 * within AMOUNT_MAX_DIGITS either side of the point: an unbounded exponent would stall a replica or overflow Postgres.
 */
const Amount = () =>
  ValidateBy({
    name: 'isAmount',
    validator: {
      validate: (value: unknown) =>
        (typeof value === 'number' && Number.isFinite(value) && isBoundedDecimal(String(value))) ||
        (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) && isBoundedDecimal(value)),
      defaultMessage: () => `$property must be a number of at most ${AMOUNT_MAX_DIGITS} digits before and after the point`,
    },
  });

export class ProjectEventDto {
  @IsString() @ServiceId() id: string;
  @IsString() name: string;
  @IsOptional() @IsObject() customer?: object;
  @IsOptional() @IsString() job_number?: string;
  @IsOptional() @IsObject() work_site_address?: object;
  @IsOptional() @IsObject() sales_rep?: object;
  @IsArray() @IsString({ each: true }) tags: string[];
}

export class ProjectUpdatedDto extends ProjectEventDto {
  // Documented as app, web or open_api; nothing is done differently by it, so a new value is taken (and counted).
  @IsOptional() @IsString() source?: string | null;
}

export class DrawingEventDto {
  @IsString() @ServiceId() id: string;
  @IsString() @ServiceId() project_id: string;
  @IsString() name: string;
  // The push reads the drawing again (D1) for its PDF; a drawing without one yet is passed over there.
  @IsOptional() @IsString() pdf_url: string | null;
  @IsOptional() @IsString() png_url: string | null;
  @IsArray() @IsString({ each: true }) tags: string[];
}

export class ProposalOptionDto {
  @IsString() @Id() id: string;
  @IsString() name: string;
  @IsString() @ServiceId() drawing_id: string;
  @IsString() drawing_version_id: string;
  @Amount() total: number | string;
  @IsString() pdf_url: string;
}

export class ProposalSignedDto {
  @IsString() @ServiceId() project_id: string;
  @IsString() name: string;
  @IsString() url: string;
  @IsString() @ServiceId() drawing_id: string;
  @IsString() drawing_version_id: string;
}

class ProposalPartiesDto {
  @IsString() @ServiceId() project_id: string;
  @IsString() @ServiceId() proposal_id: string;
  @IsString() name: string;
  @IsString() customer_name: string;
  @IsString() contact_email: string;
  @IsString() sales_representative: string;
}

export class ProposalSentDto extends ProposalPartiesDto {
  @IsArray() @Nested(() => ProposalOptionDto, { each: true }) proposal_options: ProposalOptionDto[];
}

class ApprovedOptionOfApprovedDto {
  @IsString() name: string;
  @IsString() @ServiceId() drawing_id: string;
  // Documented, but nothing depends on it: a delivery without it is still pushed rather than refused.
  @IsOptional() @IsString() drawing_version_id?: string;
  @Amount() total: number | string;
  @IsString() pdf_url: string;
}

export class ProposalApprovedDto extends ProposalPartiesDto {
  @IsObject() @Nested(() => ApprovedOptionOfApprovedDto) approved_option: ApprovedOptionOfApprovedDto;
}

class ApprovedOptionDto {
  @IsOptional() @IsString() id?: string;
  @IsString() @ServiceId() drawing_id: string;
  @IsOptional() @IsString() drawing_version_id?: string;
}

export class ProposalStatusChangedDto {
  @IsString() @ServiceId() proposal_id: string;
  @IsString() @ServiceId() project_id: string;
  @IsString() name: string;
  // Only APPROVED leads to work; any other status, a new one too, is recorded as skipped.
  @IsString() @MinLength(1) status: string;
  @IsString() sales_representative: string;
  @IsString() contact_email: string;
  @IsString() customer_name: string;
  @IsString() customer_email: string;
  @IsOptional() @IsString() document_number?: string;
  @IsOptional() @IsString() close_note?: string;
  @IsOptional() @Amount() total?: number | string;
  @IsOptional() @IsString() pdf_url?: string;
  @IsOptional() @IsObject() @Nested(() => ApprovedOptionDto) approved_option?: ApprovedOptionDto;
  @IsOptional() @IsString() initial_proposal_id?: string;
  @IsOptional() @IsArray() @Nested(() => ProposalOptionDto, { each: true }) proposal_options?: ProposalOptionDto[];
  @IsOptional() @IsString() template_id?: string | null;
}

export class ProposalViewedDto {
  @IsString() @ServiceId() proposal_id: string;
  @IsString() @ServiceId() project_id: string;
  @IsString() name: string;
  @IsString() viewed_at: string;
  @IsString() status: string;
  @IsString() sales_representative: string;
  @IsString() contact_email: string;
  @IsString() customer_name: string;
  @IsString() customer_email: string;
  @IsOptional() @IsString() document_number?: string;
  @IsOptional() @IsString() initial_proposal_id?: string;
  @IsOptional() @IsString() template_id?: string;
}

export class PaymentReceivedDto {
  @IsString() @ServiceId() proposal_id: string;
  @IsString() @ServiceId() drawing_id: string;
  @Amount() paid_amount: number | string;
  // A channel added since is taken (and counted, see tolerance.ts): the payment note only quotes it.
  @IsString() @MinLength(1) pay_channel: string;
  @ValidateIf((p: PaymentReceivedDto) => p.pay_channel === 'service_payment' || p.paid_time !== undefined) @IsString() paid_time?: string;
  @ValidateIf((p: PaymentReceivedDto) => p.pay_channel === 'mark_as_paid' || p.paid_date !== undefined) @IsString() paid_date?: string;
  @IsString() payment_method: string;
}

export class AppointmentPromptDto {
  @IsString() @ServiceId() project_id: string;
  @IsString() @ServiceId() drawing_id: string;
  @IsString() @Id() appointment_id: string;
  @IsBoolean() yes_no: boolean;
}

export class RecordPromptDto {
  @IsString() @ServiceId() drawing_id: string;
  @IsIn(['Deals', 'Quotes', 'Leads', 'Contacts']) record_crm_module: string;
  @IsString() @Id() record_crm_record_id: string;
  @IsBoolean() yes_no: boolean;
  @IsOptional() @IsString() @ServiceId() project_id?: string;
}

export const EVENT_DTOS = {
  'project.created': ProjectEventDto,
  'project.updated': ProjectUpdatedDto,
  'drawing.created': DrawingEventDto,
  'drawing.updated': DrawingEventDto,
  'proposal.signed': ProposalSignedDto,
  'proposal.sent': ProposalSentDto,
  'proposal.approved': ProposalApprovedDto,
  'proposal.status_changed': ProposalStatusChangedDto,
  'proposal.viewed': ProposalViewedDto,
  'proposal.payment.received': PaymentReceivedDto,
} as const;
