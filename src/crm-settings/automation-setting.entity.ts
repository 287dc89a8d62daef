import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AutomationCrm } from './automation-settings.js';

/** One CRM's automation settings (src/automation-settings/automation-settings.ts has their shape); no row: the defaults. */
@Entity('automation_setting')
export class AutomationSetting {
  @PrimaryColumn({ type: 'text' })
  crm: AutomationCrm;

  @Column({ type: 'jsonb' })
  settings: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** The admin (token name) who saved them. */
  @Column({ name: 'updated_by', type: 'text', nullable: true })
  updatedBy: string | null;
}
