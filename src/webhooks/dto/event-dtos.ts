import { IsArray, IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString, MinLength, ValidateIf } from 'class-validator';
import { Nested } from './shape-check.js';

/** Payload DTOs of the spec's events list. Ids arrive as strings here: the parser normalised them first. */

const Id = () => MinLength(1, { message: '$property must be a non-empty id' });

export class ProjectEventDto {
  @IsString() @Id() id: string;
  @IsString() name: string;
  @IsOptional() @IsObject() customer?: object;
  @IsOptional() @IsString() job_number?: string;
  @IsOptional() @IsObject() work_site_address?: object;
  @IsOptional() @IsObject() sales_rep?: object;
  @IsArray() @IsString({ each: true }) tags: string[];
}

export class ProjectUpdatedDto extends ProjectEventDto {
  @IsOptional() @IsIn(['app', 'web', 'open_api', null]) source?: string | null;
}

export class DrawingEventDto {
  @IsString() @Id() id: string;
  @IsString() @Id() project_id: string;
  @IsString() name: string;
  @IsString() pdf_url: string;
  @IsString() png_url: string;
  @IsArray() @IsString({ each: true }) tags: string[];
}

export class ProposalOptionDto {
  @IsString() @Id() id: string;
  @IsString() name: string;
  @IsString() @Id() drawing_id: string;
  @IsString() drawing_version_id: string;
  @IsNumber() total: number;
  @IsString() pdf_url: string;
}

export class ProposalSignedDto {
  @IsString() @Id() project_id: string;
  @IsString() name: string;
  @IsString() url: string;
  @IsString() @Id() drawing_id: string;
  @IsString() drawing_version_id: string;
}

class ProposalPartiesDto {
  @IsString() @Id() project_id: string;
  @IsString() @Id() proposal_id: string;
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
  @IsString() @Id() drawing_id: string;
  // Documented, but nothing depends on it: a delivery without it is still pushed rather than refused.
  @IsOptional() @IsString() drawing_version_id?: string;
  @IsNumber() total: number;
  @IsString() pdf_url: string;
}

export class ProposalApprovedDto extends ProposalPartiesDto {
  @IsObject() @Nested(() => ApprovedOptionOfApprovedDto) approved_option: ApprovedOptionOfApprovedDto;
}

class ApprovedOptionDto {
  @IsOptional() @IsString() id?: string;
  @IsString() @Id() drawing_id: string;
  @IsOptional() @IsString() drawing_version_id?: string;
}

export class ProposalStatusChangedDto {
  @IsString() @Id() proposal_id: string;
  @IsString() @Id() project_id: string;
  @IsString() name: string;
  @IsIn(['DRAFT', 'PENDING', 'VOID', 'LOST', 'APPROVED', 'EXPIRED']) status: string;
  @IsString() sales_representative: string;
  @IsString() contact_email: string;
  @IsString() customer_name: string;
  @IsString() customer_email: string;
  @IsOptional() @IsString() document_number?: string;
  @IsOptional() @IsString() close_note?: string;
  @IsOptional() @IsNumber() total?: number;
  @IsOptional() @IsString() pdf_url?: string;
  @IsOptional() @IsObject() @Nested(() => ApprovedOptionDto) approved_option?: ApprovedOptionDto;
  @IsOptional() @IsString() initial_proposal_id?: string;
  @IsOptional() @IsArray() @Nested(() => ProposalOptionDto, { each: true }) proposal_options?: ProposalOptionDto[];
  @IsOptional() @IsString() template_id?: string | null;
}

export class ProposalViewedDto {
  @IsString() @Id() proposal_id: string;
  @IsString() @Id() project_id: string;
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
  @IsString() @Id() proposal_id: string;
  @IsString() @Id() drawing_id: string;
  @IsNumber() paid_amount: number;
  @IsIn(['service_payment', 'mark_as_paid']) pay_channel: string;
  @ValidateIf((p: PaymentReceivedDto) => p.pay_channel === 'service_payment') @IsString() paid_time?: string;
  @ValidateIf((p: PaymentReceivedDto) => p.pay_channel === 'mark_as_paid') @IsString() paid_date?: string;
  @IsString() payment_method: string;
}

export class AppointmentPromptDto {
  @IsString() @Id() project_id: string;
  @IsString() @Id() drawing_id: string;
  @IsString() @Id() appointment_id: string;
  @IsBoolean() yes_no: boolean;
}

export class RecordPromptDto {
  @IsString() @Id() drawing_id: string;
  @IsIn(['Deals', 'Quotes', 'Leads', 'Contacts']) record_crm_module: string;
  @IsString() @Id() record_crm_record_id: string;
  @IsBoolean() yes_no: boolean;
  @IsOptional() @IsString() @Id() project_id?: string;
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
