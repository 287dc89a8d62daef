import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { InboxDelivery, type InboxStatus, type WebhookEndpoint } from './inbox.entity.js';

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

const ERROR_MAX = 2000;

/** The SQL of the `webhook_inbox` table. */
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

  get(id: string): Promise<InboxDelivery | null> {
    return this.database.repo(InboxDelivery).findOneBy({ id });
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
        `SELECT id::text FROM webhook_inbox WHERE status = 'received' AND enqueued_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
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
        ORDER BY id LIMIT $2`,
      [olderThanMs / 1000, limit, afterId],
    );
    return rows.map((r) => r.id);
  }

  /** The project a delivery concerns, found when it is routed. */
  async setProject(id: string, projectId: string): Promise<void> {
    await this.database.query(`UPDATE webhook_inbox SET project_id = $2 WHERE id = $1 AND project_id IS DISTINCT FROM $2`, [id, projectId]);
  }

  async markEnqueued(id: string): Promise<void> {
    await this.database.query(`UPDATE webhook_inbox SET enqueued_at = now() WHERE id = $1`, [id]);
  }
}
