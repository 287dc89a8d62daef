import type { AutomationCrm } from './automation-settings.js';

/** One CRM's automation settings (src/automation-settings/automation-settings.ts has their shape); no row: the defaults. */
export interface AutomationSetting {
  crm: AutomationCrm;
  settings: Record<string, unknown>;
  updatedAt: Date;

  /** The admin (token name) who saved them. */
  updatedBy: string | null;
}
