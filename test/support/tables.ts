import type { MappingCrm, MappingStatus } from '../../src/mappings/mapping.row.js';
import type { RecordModule } from '../../src/service-api/service-api.types.js';
import { rowToEntry } from '../../src/sync-log/sync-log.repository.js';
import type { SyncLogEntry, SyncStatus } from '../../src/sync-log/sync-log.row.js';
import { InboxRepository } from '../../src/webhooks/inbox.repository.js';
import type { InboxDelivery, InboxStatus } from '../../src/webhooks/inbox.row.js';
import type { Harness } from './harness.js';

// What the tests read and seed in the tables, where no route of the daemon shows it. Rows are read as their
// repositories type them (`rowToEntry`, `InboxRepository.get`), so a test sees what the daemon sees.

/** Each field one value, or a list of values any of which matches. */
type Where<T extends string> = Partial<Record<T, string | readonly string[]>>;

const ENTRY_FILTERS = { id: 'id', kind: 'kind', target: 'target', projectId: 'project_id', inboxId: 'inbox_id', status: 'status' } as const;
const INBOX_FILTERS = { id: 'id', status: 'status' } as const;

function whereOf<T extends string>(columns: Record<T, string>, where: Where<T>, params: unknown[] = []): { sql: string; params: unknown[] } {
  const conditions = Object.entries<string | readonly string[] | undefined>(where).flatMap(([field, value]) => {
    if (value === undefined) return [];
    params.push(typeof value === 'string' ? [value] : value);
    return [`${columns[field as T]}::text = ANY($${params.length}::text[])`];
  });
  return { sql: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** The sync log entries matching every given field, oldest first. */
export async function syncLogEntries(
  h: Harness,
  where: Where<keyof typeof ENTRY_FILTERS> & { status?: SyncStatus | readonly SyncStatus[] } = {},
): Promise<SyncLogEntry[]> {
  const { sql, params } = whereOf(ENTRY_FILTERS, where);
  const rows = await h.database.query<Array<Record<string, unknown>>>(`SELECT * FROM sync_log ${sql} ORDER BY id`, params);
  return rows.map(rowToEntry);
}

/** The oldest sync log entry matching every given field, or null. */
export async function syncLogEntry(h: Harness, where: Parameters<typeof syncLogEntries>[1]): Promise<SyncLogEntry | null> {
  return (await syncLogEntries(h, where))[0] ?? null;
}

/**
 * The stored deliveries matching every given field (`body`: exactly these bytes), oldest first, as
 * `InboxRepository.get` reads them.
 */
export async function inboxDeliveries(
  h: Harness,
  where: Where<keyof typeof INBOX_FILTERS> & { status?: InboxStatus | readonly InboxStatus[]; body?: string | Buffer } = {},
): Promise<InboxDelivery[]> {
  const { body, ...fields } = where;
  const { sql, params } = whereOf(INBOX_FILTERS, fields);
  const byBody = body === undefined ? '' : `${sql ? ' AND' : 'WHERE'} body = $${params.push(Buffer.isBuffer(body) ? body : Buffer.from(body))}`;
  const ids = await h.database.query<Array<{ id: string }>>(`SELECT id::text AS id FROM webhook_inbox ${sql}${byBody} ORDER BY webhook_inbox.id`, params);
  const inbox = h.app.get(InboxRepository);
  const deliveries = await Promise.all(ids.map(({ id }) => inbox.get(id)));
  return deliveries.filter((d): d is InboxDelivery => d !== null);
}

/** A mapping row as the mappings API would leave it, written directly (for tests of modules that only read mappings). */
export async function insertMapping(
  h: Harness,
  mapping: { crm: MappingCrm; projectId: string; status: MappingStatus; error?: string | null } & (
    { appointmentId: string } | { recordCrmModule: RecordModule; recordCrmRecordId: string }
  ),
): Promise<void> {
  await h.database.query(
    `INSERT INTO mapping (crm, appointment_id, record_crm_module, record_crm_record_id, project_id, status, error) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      mapping.crm,
      'appointmentId' in mapping ? mapping.appointmentId : null,
      'recordCrmModule' in mapping ? mapping.recordCrmModule : null,
      'recordCrmRecordId' in mapping ? mapping.recordCrmRecordId : null,
      mapping.projectId,
      mapping.status,
      mapping.error ?? null,
    ],
  );
}
