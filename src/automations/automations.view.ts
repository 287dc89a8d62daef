import type { AutomationCrm, AutomationSettingsByCrm } from '../crm-settings/automation-settings.js';
import type { AutomationSettingsRecord } from '../crm-settings/automation-settings.service.js';
import type { PollState } from './automation-poll.repository.js';

/** One CRM's automation as GET /api/automations answers it: the settings, then how its reading goes. */
export type AutomationView<K extends AutomationCrm> = AutomationSettingsByCrm[K] & {
  last_run_at: string | null;
  cursor: string | null;
  last_error: string | null;
  updated_at: string | null;
  updated_by: string | null;
};

export function automationView<K extends AutomationCrm>(record: AutomationSettingsRecord<K>, poll: PollState): AutomationView<K> {
  return {
    ...record.settings,
    last_run_at: poll.lastRunAt ? new Date(poll.lastRunAt).toISOString() : null,
    cursor: poll.cursor,
    last_error: poll.lastError,
    updated_at: record.updatedAt ? new Date(record.updatedAt).toISOString() : null,
    updated_by: record.updatedBy,
  };
}
