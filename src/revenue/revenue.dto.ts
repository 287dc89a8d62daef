import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { PageQueryDto } from '../common/pagination.js';
import { RECONCILE_SCOPES, type ReconcileScope } from '../domain/actions.js';
import { DRIFT_KINDS, DRIFT_STATES, type DriftKind, type DriftRow, type DriftState } from './drift.js';

const CRMS = ['appointment', 'record'] as const;

/** Which drifts: by CRM, kind, state and project (every filter optional). */
export class DriftFilterDto {
  @ApiPropertyOptional({ enum: CRMS })
  @IsOptional()
  @IsIn(CRMS, { message: `crm must be one of ${CRMS.join(', ')}` })
  crm?: (typeof CRMS)[number];

  @ApiPropertyOptional({ enum: DRIFT_KINDS, enumName: 'DriftKind' })
  @IsOptional()
  @IsIn(DRIFT_KINDS, { message: `kind must be one of ${DRIFT_KINDS.join(', ')}` })
  kind?: DriftKind;

  @ApiPropertyOptional({ enum: DRIFT_STATES, enumName: 'DriftState' })
  @IsOptional()
  @IsIn(DRIFT_STATES, { message: `state must be one of ${DRIFT_STATES.join(', ')}` })
  state?: DriftState;

  @ApiPropertyOptional({ description: "The service's project id (exact decimal text)." })
  @IsOptional()
  @Matches(/^\d{1,30}$/, { message: 'project_id must be a decimal id' })
  project_id?: string;
}

export class DriftListQueryDto extends IntersectionType(PageQueryDto, DriftFilterDto) {}

export class RevenueCheckRequestDto {
  @ApiPropertyOptional({
    enum: RECONCILE_SCOPES,
    default: 'changes',
    description: '`changes`: the CRM records changed since the last pass and those crm-sync wrote to since; `full`: every approved record.',
  })
  @IsOptional()
  @IsIn(RECONCILE_SCOPES, { message: `scope must be one of ${RECONCILE_SCOPES.join(', ')}` })
  scope?: ReconcileScope;
}

/** One drift as the API shows it: the three values side by side, who changed the CRM's last and when. */
export class DriftView {
  @ApiProperty() id: string;
  @ApiProperty({ type: String, nullable: true }) project_id: string | null;
  @ApiProperty() proposal_id: string;
  @ApiProperty({ enum: CRMS }) crm: string;
  @ApiProperty({ example: 'Deals/4150868000005277036', description: 'The appointment id, or `Module/record id` in Zoho.' }) target: string;
  @ApiProperty({ enum: DRIFT_KINDS, enumName: 'DriftKind' }) kind: DriftKind;
  @ApiProperty({ enum: DRIFT_STATES, enumName: 'DriftState' }) state: DriftState;
  @ApiProperty({ type: String, nullable: true, description: "The service's value (amounts exact decimal text)." }) service_value: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'What crm-sync last wrote; null: never written.' }) written_value: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The sync log entry of that write.' }) written_entry_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The CRM's value now; null: nothing (gone)." }) crm_value: string | null;
  @ApiProperty({ type: String, nullable: true, description: "Who changed the CRM's record last, as the CRM names them." }) changed_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) changed_at: string | null;
  @ApiProperty({ description: "The CRM's last change was crm-sync's own write (auto-heal may write again); false: a person's, or unknown." })
  by_crm_sync: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Where the record opens in its CRM.' }) link: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The sync log entry of the last heal.' }) heal_entry_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Who healed or accepted it.' }) decided_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at: string | null;
  @ApiProperty({ format: 'date-time' }) found_at: string;
  @ApiProperty({ format: 'date-time', description: 'When a check last saw it.' }) seen_at: string;
}

export function driftView(row: DriftRow): DriftView {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    project_id: row.projectId,
    proposal_id: row.proposalId,
    crm: row.crm,
    target: row.target,
    kind: row.kind,
    state: row.state,
    service_value: row.serviceValue,
    written_value: row.writtenValue,
    written_entry_id: row.writtenEntryId,
    crm_value: row.crmValue,
    changed_by: row.changedBy,
    changed_at: iso(row.changedAt),
    by_crm_sync: row.byCrmSync,
    link: row.link,
    heal_entry_id: row.healEntryId,
    decided_by: row.decidedBy,
    decided_at: iso(row.decidedAt),
    found_at: new Date(row.foundAt).toISOString(),
    seen_at: new Date(row.seenAt).toISOString(),
  };
}

export class BulkDecisionView {
  @ApiProperty({ type: [String], description: 'The drifts decided.' }) drift_ids: string[];
  @ApiProperty({ type: [String], description: "Their heals' sync log entries (heal only)." }) sync_log_ids: string[];
}

export class RevenueCrmView {
  @ApiProperty({ enum: CRMS }) crm: string;
  @ApiProperty({ example: 'Zoho CRM' }) name: string;
  @ApiProperty({ description: 'Approved proposals pushed to this CRM (each once).' }) approved: number;
  @ApiProperty({ example: '125000.00', description: 'Their approved totals, exact decimal text.' }) approved_amount: string;
  @ApiProperty({ description: 'Those without an open drift.' }) in_agreement: number;
  @ApiProperty({ example: '120000.00' }) in_agreement_amount: string;
  @ApiProperty({ description: 'Those with an open drift.' }) drifted: number;
  @ApiProperty({ example: '5000.00' }) drifted_amount: string;
  @ApiProperty({ description: 'Open drifts (a proposal may have several).' }) open_drifts: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'Open drifts per kind.' }) open_by_kind: Record<string, number>;
}

export class RevenueSummaryView {
  @ApiProperty({ type: [RevenueCrmView] }) crms: RevenueCrmView[];
  @ApiProperty({ type: String, nullable: true, description: 'The sync log id of the last revenue check pass.' }) last_check_id: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_check_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'What it did.' }) last_check_detail: string | null;
}
