import type { RecordModule } from '../service-api/service-api.types.js';
import type { Mapping, MappingCrm, MappingSource, MappingStatus } from './mapping.row.js';

/** The `mapping` table's columns, for raw queries whose rows are read back with `rowToMapping`. */
export const MAPPING_COLUMNS =
  'id, crm, appointment_id, record_crm_module, record_crm_record_id, crm_record_name, crm_record_url, project_id, status, source, error, claimed_by, created_at, updated_at';

export interface MappingRow {
  id: string;
  crm: MappingCrm;
  appointment_id: string | null;
  record_crm_module: RecordModule | null;
  record_crm_record_id: string | null;
  crm_record_name: string | null;
  crm_record_url?: string | null;
  project_id: string;
  status: MappingStatus;
  source: MappingSource;
  error: string | null;
  claimed_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export function rowToMapping(row: MappingRow): Mapping {
  return {
    id: String(row.id),
    crm: row.crm,
    appointmentId: row.appointment_id,
    recordCrmModule: row.record_crm_module,
    recordCrmRecordId: row.record_crm_record_id,
    crmRecordName: row.crm_record_name,
    crmRecordUrl: row.crm_record_url ?? null,
    projectId: row.project_id,
    status: row.status,
    source: row.source,
    error: row.error,
    claimedBy: row.claimed_by === null ? null : String(row.claimed_by),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
