import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { ACTION_KINDS } from '../domain/actions.js';
import { Mapping } from '../mappings/mapping.entity.js';
import { SyncLogEntry, SYNC_STATUSES } from '../sync-log/sync-log.entity.js';
import type { InboxStatus, WebhookEndpoint } from '../webhooks/inbox.entity.js';

/** A delivery as the operations API lists it (no body). */
export interface DeliveryRow {
  id: string;
  endpoint: WebhookEndpoint;
  event: string | null;
  status: InboxStatus;
  duplicates: number;
  attempts: number;
  replays: number;
  projectId: string | null;
  error: string | null;
  receivedAt: Date;
  routedAt: Date | null;
}

export interface DeliveryFilter {
  endpoint?: WebhookEndpoint;
  event?: string;
  /** An inbox status, or `duplicate`: deliveries the service sent more than once (`duplicates > 0`). */
  status?: InboxStatus | 'duplicate';
  projectId?: string;
  since?: Date;
  limit: number;
  cursor?: string;
}

export interface FailedFilter {
  kind?: string;
  projectId?: string;
  crm?: string;
  since?: Date;
}

export interface HourRow {
  hour: string;
  succeeded: number;
  failed: number;
  skipped: number;
}

const DELIVERY_COLUMNS = `id::text AS id, endpoint, event, status, duplicates, attempts, replays, project_id AS "projectId", error,
  received_at AS "receivedAt", routed_at AS "routedAt"`;

const OUTCOMES = ['succeeded', 'failed', 'skipped'];

/**
 * The SQL of the operations API: read-only views over `sync_log`, `webhook_inbox` and `mapping`, written to use the
 * indexes those tables have (`sync_log (status, updated_at)`, `(kind, created_at)`, `(project_id, created_at)`,
 * `(inbox_id)`; `webhook_inbox (status, received_at)`, `(project_id, id)`).
 */
@Injectable()
export class OperationsRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Entries per status whose last change is at or after `since`: one index-only count per status. */
  async countsByStatus(since: Date): Promise<Record<string, number>> {
    const rows = await this.database.query<Array<{ status: string; n: number }>>(
      `SELECT s.status, (SELECT count(*) FROM sync_log l WHERE l.status = s.status AND l.updated_at >= $1)::int AS n
         FROM unnest($2::text[]) AS s(status)`,
      [since, [...SYNC_STATUSES]],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Entries per kind created at or after `since` (kinds with none left out): one index count per known kind. */
  async countsByKind(since: Date): Promise<Record<string, number>> {
    const rows = await this.database.query<Array<{ kind: string; n: number }>>(
      `SELECT k.kind, (SELECT count(*) FROM sync_log l WHERE l.kind = k.kind AND l.created_at >= $1)::int AS n
         FROM unnest($2::text[]) AS k(kind)`,
      [since, Object.keys(ACTION_KINDS)],
    );
    return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.kind, r.n]));
  }

  /** Finished entries per UTC hour (by their last change) from the hour of `since` to the current one, zero-filled. */
  async perHour(since: Date): Promise<HourRow[]> {
    return this.database.query<HourRow[]>(
      `WITH done AS (
         SELECT date_trunc('hour', updated_at AT TIME ZONE 'UTC') AS hour, status, count(*)::int AS n
           FROM sync_log WHERE status = ANY($2::text[]) AND updated_at >= $1 GROUP BY 1, 2)
       SELECT to_char(h.hour, 'YYYY-MM-DD"T"HH24:00:00.000"Z"') AS hour,
              coalesce(sum(d.n) FILTER (WHERE d.status = 'succeeded'), 0)::int AS succeeded,
              coalesce(sum(d.n) FILTER (WHERE d.status = 'failed'), 0)::int AS failed,
              coalesce(sum(d.n) FILTER (WHERE d.status = 'skipped'), 0)::int AS skipped
         FROM generate_series(date_trunc('hour', $1::timestamptz AT TIME ZONE 'UTC'), date_trunc('hour', now() AT TIME ZONE 'UTC'), interval '1 hour') AS h(hour)
         LEFT JOIN done d ON d.hour = h.hour
        GROUP BY h.hour ORDER BY h.hour`,
      [since, OUTCOMES],
    );
  }

  /** Seconds since the longest-waiting queued entry was (last) queued; null when none is queued. */
  async oldestQueuedAgeSeconds(): Promise<number | null> {
    const [row] = await this.database.query<Array<{ age: number | null }>>(
      `SELECT floor(extract(epoch FROM now() - min(updated_at)))::int AS age FROM sync_log WHERE status = 'queued'`,
    );
    return row?.age ?? null;
  }

  /** Deliveries stored and not routed yet. */
  async deliveriesWaiting(): Promise<number> {
    const [row] = await this.database.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'received'`);
    return row?.n ?? 0;
  }

  projectMappings(projectId: string): Promise<Mapping[]> {
    return this.database.repo(Mapping).find({ where: { projectId }, order: { id: 'ASC' } });
  }

  /** A project's newest actions. */
  projectActions(projectId: string, limit: number): Promise<SyncLogEntry[]> {
    return this.database.repo(SyncLogEntry).find({ where: { projectId }, order: { id: 'DESC' }, take: limit });
  }

  /**
   * A project's newest deliveries: those routing found the project of (`webhook_inbox.project_id`), and those any of
   * the project's actions came from (deliveries routed before the column existed).
   */
  projectDeliveries(projectId: string, limit: number): Promise<DeliveryRow[]> {
    return this.database.query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_inbox
        WHERE id IN (SELECT id FROM webhook_inbox WHERE project_id = $1
                     UNION SELECT inbox_id FROM sync_log WHERE project_id = $1 AND inbox_id IS NOT NULL)
        ORDER BY id DESC LIMIT $2`,
      [projectId, limit],
    );
  }

  /** A page of deliveries, newest first; fetched with `limit + 1` rows (the extra one says there is a next page). */
  listDeliveries(filter: DeliveryFilter): Promise<DeliveryRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.endpoint) add('endpoint = ?', filter.endpoint);
    if (filter.event) add('event = ?', filter.event);
    if (filter.status === 'duplicate') where.push('duplicates > 0');
    else if (filter.status) add('status = ?', filter.status);
    if (filter.projectId) add('project_id = ?', filter.projectId);
    if (filter.since) add('received_at >= ?', filter.since);
    if (filter.cursor) add('id < ?::bigint', filter.cursor);
    params.push(filter.limit + 1);
    return this.database.query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_inbox ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
  }

  async delivery(id: string): Promise<(DeliveryRow & { body: Buffer }) | null> {
    const [row] = await this.database.query<Array<DeliveryRow & { body: Buffer }>>(`SELECT ${DELIVERY_COLUMNS}, body FROM webhook_inbox WHERE id = $1`, [id]);
    return row ?? null;
  }

  deliveryActions(inboxId: string): Promise<SyncLogEntry[]> {
    return this.database.repo(SyncLogEntry).find({ where: { inboxId }, order: { id: 'ASC' } });
  }

  /**
   * Counts a replay on a delivery routing is done with (routed or failed) and answers its number; null when the
   * delivery is in another status (the caller says why).
   */
  async nextReplay(id: string): Promise<number | null> {
    const rows = await this.database.returning<{ replays: number }>(
      `UPDATE webhook_inbox SET replays = replays + 1 WHERE id = $1 AND status IN ('routed', 'failed') RETURNING replays`,
      [id],
    );
    return rows[0]?.replays ?? null;
  }

  /** How many failed entries match (for the console's confirmation of a bulk retry). */
  async countFailed(filter: FailedFilter): Promise<number> {
    const { sql, params } = failedWhere(filter);
    const [row] = await this.database.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM sync_log WHERE ${sql}`, params);
    return row?.n ?? 0;
  }

  /** The ids of the oldest `limit` failed entries matching. */
  async failedIds(filter: FailedFilter, limit: number): Promise<string[]> {
    const { sql, params } = failedWhere(filter);
    params.push(limit);
    const rows = await this.database.query<Array<{ id: string }>>(
      `SELECT id::text AS id FROM sync_log WHERE ${sql} ORDER BY id LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => r.id);
  }
}

function failedWhere(filter: FailedFilter): { sql: string; params: unknown[] } {
  const where = [`status = 'failed'`];
  const params: unknown[] = [];
  const add = (column: string, op: string, value: unknown) => {
    params.push(value);
    where.push(`${column} ${op} $${params.length}`);
  };
  if (filter.kind) add('kind', '=', filter.kind);
  if (filter.projectId) add('project_id', '=', filter.projectId);
  if (filter.crm) add('crm', '=', filter.crm);
  if (filter.since) add('created_at', '>=', filter.since);
  return { sql: where.join(' AND '), params };
}
