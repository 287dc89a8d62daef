import type { RecordCrmAutomation } from '../crm-settings/automation-settings.js';
import type { NotificationChannelRow } from './notification-channel.row.js';

/** Past this long without a notification, the record CRM is read at the normal period again (a channel gone quiet). */
export const NOTIFICATION_SILENCE_MS = 24 * 3600_000;

/**
 * Whether Zoho's notifications carry the record CRM's changes now: the channel is live for the automation's module,
 * its last check went well, and it has not gone quiet for long. While they do, the schedule reads Zoho only every
 * AUTOMATION_NOTIFIED_POLL_SECONDS.
 */
export function notificationsFlowing(channel: NotificationChannelRow | null, settings: RecordCrmAutomation, now = Date.now()): boolean {
  if (!channel || !settings.create_projects || channel.module !== settings.module || channel.lastError) return false;
  if (new Date(channel.expiresAt).getTime() <= now) return false;
  const heardAt = Math.max(channel.lastNotifiedAt ? new Date(channel.lastNotifiedAt).getTime() : 0, new Date(channel.madeAt).getTime());
  return now - heardAt < NOTIFICATION_SILENCE_MS;
}
