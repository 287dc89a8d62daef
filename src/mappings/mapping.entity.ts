import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
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
@Entity('mapping')
export class Mapping {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  crm: MappingCrm;

  @Column({ name: 'appointment_id', type: 'text', nullable: true })
  appointmentId: string | null;

  @Column({ name: 'record_crm_module', type: 'text', nullable: true })
  recordCrmModule: RecordModule | null;

  @Column({ name: 'record_crm_record_id', type: 'text', nullable: true })
  recordCrmRecordId: string | null;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  status: MappingStatus;

  @Column({ type: 'text', default: 'admin' })
  source: MappingSource;

  /** The CRM record's name as people know it (the appointment's customer, the Zoho record's name); null while unknown. */
  @Column({ name: 'crm_record_name', type: 'text', nullable: true })
  crmRecordName: string | null;

  /** Where the CRM record opens in its CRM, when the CRM said (an appointment's `web_url`); null otherwise. */
  @Column({ name: 'crm_record_url', type: 'text', nullable: true })
  crmRecordUrl: string | null;

  /** The reason when failed. */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The association action (sync log id) that has taken this pending mapping, so no other sends it too. */
  @Column({ name: 'claimed_by', type: 'bigint', nullable: true })
  claimedBy: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
