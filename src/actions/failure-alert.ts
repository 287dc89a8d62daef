import type { CreateProjectPayload } from '../domain/actions.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';

/**
 * The alert's line for an action that failed for good. A failed project creation names its CRM record (and the
 * project's name), since no project id exists to look it up by; any other names its project when it has one
 * (`project`: " (project <name> <id>)", or empty).
 */
export function failureAlertDetail(entry: Pick<SyncLogEntry, 'id' | 'kind' | 'payload'>, reason: string, project = ''): string {
  if (entry.kind === 'create_project') {
    const { record, name } = entry.payload as Partial<CreateProjectPayload>;
    if (record?.id) {
      const where = record.crm === 'appointment' ? `appointment ${record.id}` : `Zoho ${record.module} record ${record.id}`;
      return `#${entry.id} create_project: no project created for ${where}${name ? ` ("${name}")` : ''}: ${reason}`;
    }
  }
  return `#${entry.id} ${entry.kind}${project}: ${reason}`;
}
