import type { AutomationCrm } from '../crm-settings/automation-settings.js';

/** How far one CRM's changes were read for the automations, and how the last read went. */
export interface AutomationPoll {
  crm: AutomationCrm;

  /** The change time read up to (ISO 8601): the next read asks for changes from there. Null: from the beginning. */
  cursor: string | null;

  /** The CRM's token for the next page of a listing under way (a read cut off mid-way resumes there). */
  pageToken: string | null;
  lastRunAt: Date | null;
  lastError: string | null;

  /** The sync log entry of the last read. */
  lastEntryId: string | null;
  updatedAt: Date;
}
