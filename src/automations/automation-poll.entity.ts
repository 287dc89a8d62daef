import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AutomationCrm } from '../crm-settings/automation-settings.js';

/** How far one CRM's changes were read for the automations, and how the last read went. */
@Entity('automation_poll')
export class AutomationPoll {
  @PrimaryColumn({ type: 'text' })
  crm: AutomationCrm;

  /** The change time read up to (ISO 8601): the next read asks for changes from there. Null: from the beginning. */
  @Column({ type: 'text', nullable: true })
  cursor: string | null;

  /** The CRM's token for the next page of a listing under way (a read cut off mid-way resumes there). */
  @Column({ name: 'page_token', type: 'text', nullable: true })
  pageToken: string | null;

  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true })
  lastRunAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  /** The sync log entry of the last read. */
  @Column({ name: 'last_entry_id', type: 'bigint', nullable: true })
  lastEntryId: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
