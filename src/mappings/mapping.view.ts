import { ApiProperty } from '@nestjs/swagger';
import { RECORD_MODULES } from '../service-api/service-api.types.js';
import { MAPPING_SOURCES, type Mapping, type MappingSource } from './mapping.row.js';

const NO_NAMES: ReadonlyMap<string, string> = new Map();

/** A mapping as the admin API shows it (docs/operations.md, "The admin API"): ids as JSON strings, times ISO 8601 UTC. */
export class MappingView {
  @ApiProperty({ example: '12' }) id: string;
  @ApiProperty({ enum: ['appointment', 'record'] }) crm: 'appointment' | 'record';
  @ApiProperty({ nullable: true, type: String, example: 'APT-1001' }) appointment_id: string | null;
  @ApiProperty({ nullable: true, enum: RECORD_MODULES }) record_crm_module: string | null;
  @ApiProperty({ nullable: true, type: String, example: '4150868000004357001' }) record_crm_record_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Ana Ruiz', description: "The CRM record's name; null while unknown." })
  crm_record_name: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'https://crm.zoho.com/crm/org20071234/tab/Deals/4150868000004357001',
    description: 'Where the CRM record opens in its CRM; null when not known (docs/operations.md, "Links to the CRMs").',
  })
  web_url: string | null;
  @ApiProperty({ example: '36029621652695017' }) project_id: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ruiz kitchen', description: "The project's name; null while unknown." })
  project_name: string | null;
  @ApiProperty({ enum: ['pending', 'associated', 'failed'] }) status: 'pending' | 'associated' | 'failed';
  @ApiProperty({ enum: MAPPING_SOURCES, description: 'Who made it: an admin, the CSV import, or an automation that created its project.' })
  source: MappingSource;
  @ApiProperty({ nullable: true, type: String, description: 'The reason when failed, else null.' }) error: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** The view of a mapping; `projectNames` gives the names known of its project (by project id). */
export function mappingView(m: Mapping, projectNames: ReadonlyMap<string, string> = NO_NAMES, links: ReadonlyMap<string, string> = NO_NAMES): MappingView {
  return {
    id: String(m.id),
    crm: m.crm,
    appointment_id: m.appointmentId,
    record_crm_module: m.recordCrmModule,
    record_crm_record_id: m.recordCrmRecordId,
    crm_record_name: m.crmRecordName ?? null,
    web_url: links.get(mappingTargetKey(m)) ?? null,
    project_id: m.projectId,
    project_name: projectNames.get(m.projectId) ?? null,
    status: m.status,
    source: m.source,
    error: m.status === 'failed' ? m.error : null,
    created_at: new Date(m.createdAt).toISOString(),
    updated_at: new Date(m.updatedAt).toISOString(),
  };
}

/** One line for messages: `mapping 12 (appointment APT-1 -> project 3602...)`. */
export function describeMapping(m: Pick<Mapping, 'id' | 'crm' | 'appointmentId' | 'recordCrmModule' | 'recordCrmRecordId' | 'projectId'>): string {
  const source = m.crm === 'appointment' ? `appointment ${m.appointmentId}` : `record ${m.recordCrmModule}/${m.recordCrmRecordId}`;
  return `mapping ${m.id} (${source} -> project ${m.projectId})`;
}

/** The mapping's CRM record as `crm:target`, the key of TargetNamesService's and CrmLinksService's maps. */
export function mappingTargetKey(m: Pick<Mapping, 'crm' | 'appointmentId' | 'recordCrmModule' | 'recordCrmRecordId'>): string {
  return m.crm === 'appointment' ? `appointment:${m.appointmentId}` : `record:${m.recordCrmModule}/${m.recordCrmRecordId}`;
}

/** The mapping's CRM record as a sync log entry names it (`crm`, `target`). */
export function mappingTarget(m: Pick<Mapping, 'crm' | 'appointmentId' | 'recordCrmModule' | 'recordCrmRecordId'>): { crm: string; target: string } {
  return { crm: m.crm, target: m.crm === 'appointment' ? m.appointmentId! : `${m.recordCrmModule}/${m.recordCrmRecordId}` };
}
