import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { WhereClause } from '../database/where-clause.js';
import { InboxDelivery, type InboxStatus, type WebhookEndpoint } from './inbox.row.js';

export interface DeliveryToStore {
  endpoint: WebhookEndpoint;
  event: string | null;
  raw: Buffer;
  hash: Buffer;
  status: InboxStatus;
}

export interface StoredDelivery {
  id: string;
  duplicate: boolean;
}

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

const ERROR_MAX = 2000;

const DELIVERY_COLUMNS = `id::text AS id, endpoint, event, status, duplicates, attempts, replays, project_id AS "projectId", error,
  received_at AS "receivedAt", routed_at AS "routedAt"`;

const INBOX_COLUMNS = `id::text AS id, endpoint, event, body, body_hash AS "bodyHash", status, duplicates, attempts, error,
  received_at AS "receivedAt", routed_at AS "routedAt", project_id AS "projectId", replays, enqueued_at AS "enqueuedAt"`;

/**
 * Every statement on `webhook_inbox`. The operations API's reads are written to use its indexes
 * (`(status, received_at)`, `(project_id, id)`).
 */
@Injectable()
export class InboxRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Stores a batch in one statement (`crm_sync_store_deliveries`); each delivery comes back as its new id, or as
   * the id of an equal one stored within the window (`duplicate`). Answers in the batch's order.
   */
  async storeBatch(batch: DeliveryToStore[], windowSeconds: number): Promise<StoredDelivery[]> {
    const rows = await this.database.prepared<{ idx: number; delivery_id: string; duplicate: boolean }>(
      'crm_sync_store_deliveries',
      'SELECT idx, delivery_id, duplicate FROM crm_sync_store_deliveries($1, $2, $3, $4, $5, $6)',
      [batch.map((d) => d.endpoint), batch.map((d) => d.event), batch.map((d) => d.raw), batch.map((d) => d.hash), batch.map((d) => d.status), windowSeconds],
    );
    const stored: StoredDelivery[] = new Array(batch.length);
    for (const row of rows) stored[row.idx - 1] = { id: String(row.delivery_id), duplicate: row.duplicate };
    return stored;
  }

  async get(id: string): Promise<InboxDelivery | null> {
    const [row] = await this.database.query<InboxDelivery[]>(`SELECT ${INBOX_COLUMNS} FROM webhook_inbox WHERE id = $1`, [id]);
    return row ?? null;
  }

  /** What routing needs of a delivery. */
  async forRouting(id: string): Promise<{ endpoint: WebhookEndpoint; body: Buffer; status: InboxStatus; receivedAt: Date } | undefined> {
    const [row] = await this.database.prepared<{ endpoint: WebhookEndpoint; body: Buffer; status: InboxStatus; receivedAt: Date }>(
      'route_delivery_read',
      'SELECT endpoint, body, status, received_at AS "receivedAt" FROM webhook_inbox WHERE id = $1',
      [id],
    );
    return row;
  }

  async markFailed(id: string, error?: string): Promise<void> {
    await this.database.query(`UPDATE webhook_inbox SET status = 'failed', error = COALESCE($2, error) WHERE id = $1`, [
      id,
      error?.slice(0, ERROR_MAX) ?? null,
    ]);
  }

  /** Counts a failed routing attempt with its reason; returns the attempts so far. */
  async countRouteAttempt(id: string, error: string): Promise<number> {
    const rows = await this.database.returning<{ attempts: number }>(
      `UPDATE webhook_inbox SET attempts = attempts + 1, error = $2 WHERE id = $1 RETURNING attempts`,
      [id, error.slice(0, ERROR_MAX)],
    );
    return rows[0]?.attempts ?? 1;
  }

  /**
   * The outbox claim: locks up to `limit` routable deliveries no job was made for (other replicas skip them),
   * hands their ids to `enqueue`, and marks them enqueued when it succeeded, in one transaction: a failed or
   * interrupted enqueue leaves them for the next claim. Returns how many were claimed.
   */
  async claimUnqueued(limit: number, enqueue: (ids: string[]) => Promise<void>): Promise<number> {
    return this.database.transaction(async (m) => {
      const rows: Array<{ id: string }> = await m.query(
        `SELECT id::text FROM webhook_inbox WHERE status = 'received' AND enqueued_at IS NULL ORDER BY webhook_inbox.id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r.id);
      await enqueue(ids);
      await m.query(`UPDATE webhook_inbox SET enqueued_at = now() WHERE id = ANY($1::bigint[])`, [ids]);
      return ids.length;
    });
  }

  /** A page of the deliveries enqueued but still not routed `olderThanMs` later (their job may be lost), after `afterId`. */
  async staleEnqueued(olderThanMs: number, limit: number, afterId = '0'): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.query(
      `SELECT id::text FROM webhook_inbox
        WHERE status = 'received' AND enqueued_at <= now() - make_interval(secs => $1) AND id > $3
        ORDER BY webhook_inbox.id LIMIT $2`,
      [olderThanMs / 1000, limit, afterId],
    );
    return rows.map((r) => r.id);
  }

  async markEnqueued(id: string): Promise<void> {
    await this.database.query(`UPDATE webhook_inbox SET enqueued_at = now() WHERE id = $1`, [id]);
  }

  /** Deliveries stored and not routed yet. */
  async countWaiting(): Promise<number> {
    const [row] = await this.database.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'received'`);
    return row?.n ?? 0;
  }

  /**
   * A project's newest deliveries: those routing found the project of (`project_id`), and those any of the project's
   * actions came from (deliveries routed before the column existed), read in the one statement.
   */
  findNewestByProject(projectId: string, limit: number): Promise<DeliveryRow[]> {
    return this.database.query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_inbox
        WHERE id IN (SELECT id FROM webhook_inbox WHERE project_id = $1
                     UNION SELECT inbox_id FROM sync_log WHERE project_id = $1 AND inbox_id IS NOT NULL)
        ORDER BY webhook_inbox.id DESC LIMIT $2`,
      [projectId, limit],
    );
  }

  /** A page of deliveries, newest first; fetched with `limit + 1` rows (the extra one says there is a next page). */
  list(filter: DeliveryFilter): Promise<DeliveryRow[]> {
    const where = new WhereClause();
    if (filter.endpoint) where.add('endpoint = ?', filter.endpoint);
    if (filter.event) where.add('event = ?', filter.event);
    if (filter.status === 'duplicate') where.require('duplicates > 0');
    else if (filter.status) where.add('status = ?', filter.status);
    if (filter.projectId) where.add('project_id = ?', filter.projectId);
    if (filter.since) where.add('received_at >= ?', filter.since);
    if (filter.cursor) where.add('id < ?::bigint', filter.cursor);
    const limit = where.param(filter.limit + 1);
    return this.database.query<DeliveryRow[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_inbox ${where.sql()} ORDER BY webhook_inbox.id DESC LIMIT ${limit}`,
      where.params,
    );
  }

  /** A delivery as the operations API shows it, with its body. */
  async findWithBody(id: string): Promise<(DeliveryRow & { body: Buffer }) | null> {
    const [row] = await this.database.query<Array<DeliveryRow & { body: Buffer }>>(`SELECT ${DELIVERY_COLUMNS}, body FROM webhook_inbox WHERE id = $1`, [id]);
    return row ?? null;
  }

  /**
   * Counts a replay on a delivery routing is done with (routed or failed) and answers its number; null when the
   * delivery is in another status (the caller says why).
   */
  async countReplay(id: string): Promise<number | null> {
    const rows = await this.database.returning<{ replays: number }>(
      `UPDATE webhook_inbox SET replays = replays + 1 WHERE id = $1 AND status IN ('routed', 'failed') RETURNING replays`,
      [id],
    );
    return rows[0]?.replays ?? null;
  }

  /**
   * Retention: deletes up to `limit` deliveries finished with (routed, ignored, failed, duplicate) before `cutoff`
   * that no unfinished entry came from, rows another transaction holds skipped. Answers how many went. The check on
   * `sync_log` is in the statement: read apart, an entry could be queued for a delivery between the two.
   */
  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    const rows = await this.database.returning<{ id: string }>(
      `DELETE FROM webhook_inbox WHERE id IN (
         SELECT w.id FROM webhook_inbox w
          WHERE w.status IN ('routed', 'ignored', 'failed', 'duplicate') AND w.received_at < $1 AND COALESCE(w.routed_at, w.received_at) < $1
            AND NOT EXISTS (SELECT 1 FROM sync_log s WHERE s.inbox_id = w.id AND s.status IN ('queued', 'running'))
          ORDER BY w.id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [cutoff, limit],
    );
    return rows.length;
  }
}
