import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import type { AlertKind } from './alert-sink.js';

export type AlertStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'suppressed';

export interface AlertRow {
  id: string;
  kind: AlertKind;
  status: AlertStatus;
  count: number;
  entries: string[];
  detail: string | null;
  text: string | null;
  error: string | null;
  httpStatus: number | null;
  createdAt: Date;
  sentAt: Date | null;
}

/** The outcome of counting events into a kind's pending alert: a row to send now, or how long until one may be. */
export type ClaimResult = { claimed: AlertRow } | { claimed: null; waitMs: number | null };

/** Most ids kept on one alert; `count` keeps counting past it. */
export const MAX_ALERT_ENTRIES = 100;
/** Longer than any send lasts (its time-out is seconds): a message still `sending` after this was abandoned. */
const ABANDONED_AFTER_SECONDS = 60;
/** An alert row a replica stopped sending (the test button's are its caller's to see through). */
const ABANDONED = `status = 'sending' AND kind <> 'test' AND updated_at < now() - interval '${ABANDONED_AFTER_SECONDS} seconds'`;

const COLUMNS = `id::text AS id, kind, status, count, entries, detail, text, error, http_status, created_at, sent_at`;

interface RawAlert {
  id: string;
  kind: AlertKind;
  status: AlertStatus;
  count: number;
  entries: string[] | null;
  detail: string | null;
  text: string | null;
  error: string | null;
  http_status: number | null;
  created_at: Date;
  sent_at: Date | null;
}

function toRow(raw: RawAlert): AlertRow {
  return {
    id: raw.id,
    kind: raw.kind,
    status: raw.status,
    count: Number(raw.count),
    entries: raw.entries ?? [],
    detail: raw.detail,
    text: raw.text,
    error: raw.error,
    httpStatus: raw.http_status,
    createdAt: raw.created_at,
    sentAt: raw.sent_at,
  };
}

/** TypeORM answers an UPDATE ... RETURNING as `[rows, count]` and a SELECT as rows. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** The `alert` table: the messages sent (or to be sent) and the throttle every replica shares. */
@Injectable()
export class AlertRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Counts `count` events (`entries`: their sync log ids) into the kind's pending alert, and claims it for sending
   * when the kind's last message is at least `intervalSeconds` old. One transaction under an advisory lock of the
   * kind, so however many replicas do this at once, one claims and the others count into the next message.
   * `count` 0 only tries the claim (the timer of a pending alert).
   */
  recordAndClaim(kind: AlertKind, count: number, entries: string[], detail: string | null, intervalSeconds: number): Promise<ClaimResult> {
    return this.database.transaction(async (m: EntityManager) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('crm_sync_alert:' || $1))`, [kind]);
      if (count > 0) {
        await m.query(
          `INSERT INTO alert (kind, status, count, entries, detail) VALUES ($1, 'pending', $2, $3::text[], $4)
           ON CONFLICT (kind) WHERE status = 'pending'
           DO UPDATE SET count = alert.count + EXCLUDED.count,
                         entries = (alert.entries || EXCLUDED.entries)[1:${MAX_ALERT_ENTRIES}],
                         detail = COALESCE(EXCLUDED.detail, alert.detail),
                         updated_at = now()`,
          [kind, count, entries.slice(0, MAX_ALERT_ENTRIES), detail],
        );
      }
      await this.foldAbandoned(m, kind);
      const [last] = rowsOf<{ wait_ms: string | null }>(
        await m.query(
          `SELECT (EXTRACT(EPOCH FROM (max(sent_at) + make_interval(secs => $2) - now())) * 1000)::bigint::text AS wait_ms
             FROM alert WHERE kind = $1 AND sent_at IS NOT NULL`,
          [kind, intervalSeconds],
        ),
      );
      const waitMs = last?.wait_ms === null || last?.wait_ms === undefined ? 0 : Number(last.wait_ms);
      if (waitMs > 0) {
        const [pending] = rowsOf<{ one: number }>(await m.query(`SELECT 1 AS one FROM alert WHERE kind = $1 AND status = 'pending'`, [kind]));
        return { claimed: null, waitMs: pending ? waitMs : null };
      }
      const [claimed] = rowsOf<RawAlert>(
        await m.query(`UPDATE alert SET status = 'sending', sent_at = now(), updated_at = now() WHERE kind = $1 AND status = 'pending' RETURNING ${COLUMNS}`, [
          kind,
        ]),
      );
      return claimed ? { claimed: toRow(claimed) } : { claimed: null, waitMs: null };
    });
  }

  /**
   * A message claimed for sending longer ago than any send lasts was left by a replica that stopped mid-send: it is
   * recorded failed, saying so, and its events are counted into the kind's pending message, which is then sent.
   */
  private async foldAbandoned(m: EntityManager, kind: AlertKind): Promise<void> {
    await m.query(
      `WITH abandoned AS (
         UPDATE alert SET status = 'failed', error = $2, updated_at = now()
          WHERE kind = $1 AND ${ABANDONED}
         RETURNING count, entries, detail
       )
       INSERT INTO alert (kind, status, count, entries, detail)
       SELECT $1, 'pending', sum(count)::int,
              (COALESCE((SELECT array_agg(e) FROM abandoned, unnest(abandoned.entries) AS e), '{}'::text[]))[1:${MAX_ALERT_ENTRIES}], max(detail)
         FROM abandoned HAVING count(*) > 0
       ON CONFLICT (kind) WHERE status = 'pending'
       DO UPDATE SET count = alert.count + EXCLUDED.count,
                     entries = (alert.entries || EXCLUDED.entries)[1:${MAX_ALERT_ENTRIES}],
                     detail = COALESCE(alert.detail, EXCLUDED.detail),
                     updated_at = now()`,
      [kind, 'not sent: the replica sending it stopped; its events were counted into the next message'],
    );
  }

  /** A message sent now whatever the throttle (the test button): recorded as being sent. */
  async insertSending(kind: AlertKind, detail: string | null): Promise<AlertRow> {
    const [row] = await this.database.returning<RawAlert>(
      `INSERT INTO alert (kind, status, count, detail, sent_at) VALUES ($1, 'sending', 1, $2, now()) RETURNING ${COLUMNS}`,
      [kind, detail],
    );
    return toRow(row);
  }

  async finish(id: string, status: 'sent' | 'failed' | 'suppressed', text: string, error: string | null, httpStatus: number | null): Promise<AlertRow | null> {
    const [row] = await this.database.returning<RawAlert>(
      `UPDATE alert SET status = $2, text = $3, error = $4, http_status = $5, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status, text, error, httpStatus],
    );
    return row ? toRow(row) : null;
  }

  /** Kinds with a pending alert, or one abandoned mid-send (left by any replica), for the periodic flush. */
  async pendingKinds(): Promise<AlertKind[]> {
    const rows = await this.database.query<Array<{ kind: AlertKind }>>(`SELECT DISTINCT kind FROM alert WHERE status = 'pending' OR (${ABANDONED})`);
    return rows.map((r) => r.kind);
  }

  /** Alerts sent, failed or recorded without a URL, newest first; `cursor`: the last id of the page before. */
  async list(limit: number, cursor?: string): Promise<AlertRow[]> {
    const rows = await this.database.query<RawAlert[]>(
      `SELECT ${COLUMNS} FROM alert WHERE status IN ('sent', 'failed', 'suppressed') AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY alert.id DESC LIMIT $1`,
      [limit, cursor ?? null],
    );
    return rows.map(toRow);
  }

  /**
   * Deletes up to `batchSize` alerts created before `cutoff` (never a pending one); returns how many. Rows locked by
   * someone else are skipped, so this never waits.
   */
  async deleteOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    const rows = await this.database.returning<{ id: string }>(
      `DELETE FROM alert WHERE id IN (
         SELECT id FROM alert WHERE created_at < $1 AND status <> 'pending' ORDER BY alert.id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [cutoff, batchSize],
    );
    return rows.length;
  }
}
