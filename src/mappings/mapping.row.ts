import type { RecordModule } from '../service-api/service-api.types.js';

export type MappingCrm = 'appointment' | 'record';
export type MappingStatus = 'pending' | 'associated' | 'failed';
/** Who made a mapping: an admin (API or console), the CSV import, or an automation that created its project. */
export const MAPPING_SOURCES = ['admin', 'import', 'automation', 'suggestion'] as const;
export type MappingSource = (typeof MAPPING_SOURCES)[number];

/**
 * Where a project's pushes go: an appointment of the appointment CRM, or a record of Zoho CRM. Unique per
 * appointment, per record, and per project and CRM (see the migration's partial indexes).
 */
export interface Mapping {
  id: string;
  crm: MappingCrm;
  appointmentId: string | null;
  recordCrmModule: RecordModule | null;
  recordCrmRecordId: string | null;
  projectId: string;
  status: MappingStatus;
  source: MappingSource;

  /** The CRM record's name as people know it (the appointment's customer, the Zoho record's name); null while unknown. */
  crmRecordName: string | null;

  /** Where the CRM record opens in its CRM, when the CRM said (an appointment's `web_url`); null otherwise. */
  crmRecordUrl: string | null;

  /** The reason when failed. */
  error: string | null;

  /** The association action (sync log id) that has taken this pending mapping, so no other sends it too. */
  claimedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}
