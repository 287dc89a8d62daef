import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import { WhereClause } from '../database/where-clause.js';
import type { NewAction } from '../domain/actions.js';
import { ACTION_KINDS, type CrmName } from '../domain/actions.js';
import { SyncLogEntry, SYNC_STATUSES, type SyncStatus } from './sync-log.row.js';

/** What the relay needs of an entry to put its job on a queue. */
export interface UnqueuedEntry {
  id: string;
  kind: string;
  crm: CrmName | null;
  retryBase: number;
  /** How long until the entry may run (`not_before`). */
  delayMs: number;
}

export interface SyncLogFilter {
  status?: SyncStatus;
  kind?: string;
  projectId?: string;
  crm?: string;
  since?: Date;
  limit: number;
  /** The id of the last entry of the previous page. */
  cursor?: string;
}

/** Which failed entries a bulk retry takes. */
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

/** One CRM's line of the funnel, as `funnelSince` reads it (amounts exact decimal text, null when none). */
export interface FunnelRow {
  crm: CrmName;
  qualifiedEntries: number;
  created: number;
  drawingsPushed: number;
  exported: number;
  approved: number;
  approvedAmount: string | null;
  sales: number;
  salesAmount: string | null;
  sold: number;
  deals: number;
  dealsAmount: string | null;
  quotes: number;
  failed: number;
  waiting: number;
}

/**
 * One row per approved proposal among `facts` (the window's entries of the approval kinds): the appointment CRM's
 * approval chain starts with an entry keyed `appointment:approved:<proposal>` carrying the total; Zoho's are the
 * signed PDF (`record:approved:<proposal>`) and the Deal's update (its `amount`; a change order's later total wins).
 */
const APPROVALS_OF_FACTS = `
  SELECT DISTINCT ON (crm, proposal) crm, proposal, amount, min(created_at) OVER (PARTITION BY crm, proposal) AS first_at FROM (
    SELECT id, crm, substr(dedupe_key, length('appointment:approved:') + 1) AS proposal, payload->>'amount' AS amount, created_at FROM facts
     WHERE dedupe_key LIKE 'appointment:approved:%'
    UNION ALL
    SELECT id, crm, payload->>'proposalId', CASE WHEN kind = 'update_deal' THEN payload->>'amount' END, created_at FROM facts
     WHERE dedupe_key LIKE 'record:approved:%' OR (kind = 'update_deal' AND payload->>'status' = 'APPROVED')) a
   ORDER BY crm, proposal, amount IS NULL, a.id DESC`;

/** A sync log entry the revenue check reads: an approval (what the service approved) or a write that succeeded. */
export interface RevenueFact {
  id: string;
  target: string;
  projectId: string | null;
  kind: string;
  status: string;
  payload: Record<string, unknown>;
  finishedAt: Date | null;
  createdAt: Date;
  role: 'approval' | 'written';
  /** The approved proposal (an approval's: its dedupe key's or its payload's); null for a write. */
  proposalId: string | null;
}

const ERROR_MAX = 2000;

const OUTCOMES = ['succeeded', 'failed', 'skipped', 'waiting'];

/**
 * Every statement on `sync_log`. Every state change of an action goes through here; the operations API's reads are
 * written to use the table's indexes (`(status, updated_at)`, `(kind, created_at)`, `(project_id, created_at)`, `(inbox_id)`).
 */
@Injectable()
export class SyncLogRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Records actions in one round trip. Each comes back as its new entry, or as the existing one (`created` false) when
   * its dedupe key was used before or a queued action holds its coalesce key. With `routedInboxId`, that delivery is
   * marked routed in the same statement, so a crash cannot leave it routed without its actions or the reverse.
   */
  async record(
    actions: NewAction[],
    options: { manager?: EntityManager; routedInboxId?: string; routedProjectId?: string | null } = {},
  ): Promise<Array<{ entry: SyncLogEntry; created: boolean }>> {
    if (actions.length === 0 && !options.routedInboxId) return [];
    const input = JSON.stringify(actions.map(toRecordInput));
    // A routed delivery is marked routed with its project in the same statement (one write of its row, not two).
    const [name, sql, params] = options.routedInboxId
      ? [
          'crm_sync_record_routed',
          'SELECT idx, created, entry FROM crm_sync_record_routed($1::jsonb, $2::bigint, $3::text) ORDER BY idx',
          [input, options.routedInboxId, options.routedProjectId ?? null],
        ]
      : ['crm_sync_record_actions', 'SELECT idx, created, entry FROM crm_sync_record_actions($1::jsonb, $2::bigint) ORDER BY idx', [input, null]];
    const rows: Array<{ idx: number; created: boolean; entry: Record<string, unknown> }> = options.manager
      ? await options.manager.query(sql, params)
      : await this.database.prepared(name, sql, params);
    return rows.map((row) => ({ entry: this.fromJson(row.entry), created: row.created }));
  }

  async get(id: string): Promise<SyncLogEntry | null> {
    if (!/^\d{1,19}$/.test(id)) return null;
    const [row] = await this.database.query<Array<Record<string, unknown>>>(`SELECT * FROM sync_log WHERE id = $1`, [id]);
    return row ? rowToEntry(row) : null;
  }

  /** Marks a run as started; null when the entry is already finished (a stale or repeated job). */
  async startRun(id: string): Promise<SyncLogEntry | null> {
    const rows = await this.database.returning<Record<string, unknown>>(
      `UPDATE sync_log SET status = 'running', attempts = attempts + 1, started_at = now(), updated_at = now()
        WHERE id = $1 AND status IN ('queued', 'running') RETURNING *`,
      [id],
    );
    return rows.length > 0 ? rowToEntry(rows[0]) : null;
  }

  /** Names the project of an entry recorded before it had one (a project created by the entry itself). */
  async setProject(id: string, projectId: string): Promise<void> {
    await this.database.query(`UPDATE sync_log SET project_id = $2, updated_at = now() WHERE id = $1 AND project_id IS NULL`, [id, projectId]);
  }

  async finish(id: string, status: 'succeeded' | 'skipped' | 'failed' | 'waiting', detail: string | null, error?: string): Promise<void> {
    await this.database.query(
      `UPDATE sync_log SET status = $2, detail = COALESCE($3, detail), error = COALESCE($4, error), coalesce_key = NULL,
              finished_at = now(), updated_at = now(), duration_ms = ${DURATION_MS}
        WHERE id = $1`,
      [id, status, detail, error?.slice(0, ERROR_MAX) ?? null],
    );
  }

  /**
   * The run failed but will be tried again: back to `queued`, keeping the reason. Unless another entry holding its
   * coalesce key was queued while it ran: that one does the same work on current data, so this one finishes
   * `skipped` instead (it could not be queued beside it anyway). Answers the id of the superseding entry, or null.
   */
  /** A queued entry whose job is gone (Redis lost its data): the relay enqueues it anew on its next pass. */
  async releaseToRelay(id: string): Promise<void> {
    await this.database.query(`UPDATE sync_log SET enqueued_at = NULL, updated_at = now() WHERE id = $1 AND status = 'queued'`, [id]);
  }

  async awaitRetry(id: string, error: string): Promise<string | null> {
    const rows = await this.database.returning<{ supersededBy: string | null }>(
      `WITH superseding AS (
         SELECT newer.id FROM sync_log retried
           JOIN sync_log newer ON newer.coalesce_key = retried.coalesce_key AND newer.status = 'queued' AND newer.id <> retried.id
          WHERE retried.id = $1
       )
       UPDATE sync_log SET error = $2, updated_at = now(),
              status = CASE WHEN s.id IS NULL THEN 'queued' ELSE 'skipped' END,
              coalesce_key = CASE WHEN s.id IS NULL THEN coalesce_key END,
              detail = CASE WHEN s.id IS NULL THEN detail
                            ELSE format('superseded by #%s, queued during this run, which does the same work on current data', s.id) END,
              finished_at = CASE WHEN s.id IS NULL THEN finished_at ELSE now() END,
              duration_ms = CASE WHEN s.id IS NULL THEN duration_ms ELSE ${DURATION_MS} END
         FROM (SELECT (SELECT id FROM superseding) AS id) s
        WHERE sync_log.id = $1
       RETURNING s.id::text AS "supersededBy"`,
      [id, error.slice(0, ERROR_MAX)],
    );
    return rows[0]?.supersededBy ?? null;
  }

  /**
   * A failed entry queued to run again (the admin's retry), with a fresh budget of tries; `attempts` keeps counting
   * every run. Null when the entry is not failed.
   */
  async requeue(id: string): Promise<SyncLogEntry | null> {
    const rows = await this.database.returning<Record<string, unknown>>(`UPDATE sync_log SET ${QUEUED_AGAIN} WHERE id = $1 AND status = 'failed' RETURNING *`, [
      id,
    ]);
    return rows.length > 0 ? rowToEntry(rows[0]) : null;
  }

  /**
   * `requeue` for many failed entries at once (the admin's bulk retry): the ids are the ones still failed, each
   * queued with a fresh budget of tries. Answers the ids requeued, in id order.
   */
  async requeueMany(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.database.returning<{ id: string }>(
      `UPDATE sync_log SET ${QUEUED_AGAIN} WHERE id = ANY($1::bigint[]) AND status = 'failed' RETURNING id::text`,
      [ids],
    );
    return rows.map((r) => r.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  }

  /**
   * The outbox claim: locks up to `limit` queued entries no job was made for (other replicas skip them), hands them
   * to `enqueue`, and marks them enqueued when it succeeded, in one transaction: a failed or interrupted enqueue
   * leaves them for the next claim. Returns how many were claimed.
   */
  async claimUnqueued(limit: number, enqueue: (entries: UnqueuedEntry[]) => Promise<void>): Promise<number> {
    return this.database.transaction(async (m) => {
      const rows: UnqueuedEntry[] = await m.query(
        `SELECT id::text, kind, crm, retry_base AS "retryBase",
                GREATEST(0, CEIL(EXTRACT(EPOCH FROM COALESCE(not_before, now()) - now()) * 1000))::int AS "delayMs"
           FROM sync_log WHERE status = 'queued' AND enqueued_at IS NULL ORDER BY sync_log.id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await enqueue(rows);
      await m.query(`UPDATE sync_log SET enqueued_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  /**
   * A page of the entries enqueued but unfinished and untouched for `olderThanMs` (their job may be lost), after
   * entry id `afterId`.
   */
  async staleEnqueued(olderThanMs: number, limit: number, afterId = '0', statuses: readonly string[] = ['queued', 'running']): Promise<SyncLogEntry[]> {
    const rows = await this.database.query<Array<Record<string, unknown>>>(
      `SELECT * FROM sync_log
        WHERE status = ANY($4::text[]) AND enqueued_at IS NOT NULL
          AND updated_at <= now() - make_interval(secs => $1) AND id > $2::bigint
        ORDER BY sync_log.id LIMIT $3`,
      [olderThanMs / 1000, afterId, limit, statuses],
    );
    return rows.map((row) => rowToEntry(row));
  }

  async list(filter: SyncLogFilter): Promise<{ items: SyncLogEntry[]; nextCursor: string | null }> {
    const where = new WhereClause();
    if (filter.status) where.add('status = ?', filter.status);
    if (filter.kind) where.add('kind = ?', filter.kind);
    if (filter.projectId) where.add('project_id = ?', filter.projectId);
    if (filter.crm) where.add('crm = ?', filter.crm);
    if (filter.since) where.add('created_at >= ?', filter.since);
    if (filter.cursor) where.add('id < ?::bigint', filter.cursor);
    const limit = where.param(filter.limit + 1);
    const rows = await this.database.query<Array<Record<string, unknown>>>(
      `SELECT * FROM sync_log ${where.sql()} ORDER BY sync_log.id DESC LIMIT ${limit}`,
      where.params,
    );
    const items = rows.slice(0, filter.limit).map((row) => rowToEntry(row));
    return { items, nextCursor: rows.length > filter.limit ? items[items.length - 1].id : null };
  }

  /** A project's newest entries. */
  async findNewestByProject(projectId: string, limit: number): Promise<SyncLogEntry[]> {
    const rows = await this.database.query<Array<Record<string, unknown>>>(`SELECT * FROM sync_log WHERE project_id = $1 ORDER BY sync_log.id DESC LIMIT $2`, [
      projectId,
      limit,
    ]);
    return rows.map((row) => rowToEntry(row));
  }

  /** The entries a delivery's routing recorded, oldest first. */
  async findByInbox(inboxId: string): Promise<SyncLogEntry[]> {
    const rows = await this.database.query<Array<Record<string, unknown>>>(`SELECT * FROM sync_log WHERE inbox_id = $1 ORDER BY sync_log.id`, [inboxId]);
    return rows.map((row) => rowToEntry(row));
  }

  /** Merges `progress` into a running entry's payload and says where it stands (a long pass resumes from there). */
  async saveProgress(id: string, progress: Record<string, unknown>, detail: string): Promise<void> {
    await this.database.query(`UPDATE sync_log SET payload = payload || $2::jsonb, detail = $3, updated_at = now() WHERE id = $1`, [
      id,
      JSON.stringify(progress),
      detail,
    ]);
  }

  /** Whether a full reconciliation pass is queued or running (or killed and waiting to be resumed). */
  async hasUnfinishedFullReconcile(): Promise<boolean> {
    const rows: unknown[] = await this.database.query(
      `SELECT 1 FROM sync_log WHERE kind = 'reconcile' AND status IN ('queued', 'running') AND payload->>'scope' = 'full' LIMIT 1`,
    );
    return rows.length > 0;
  }

  /** Entries per status whose last change is at or after `since`: one index-only count per status. */
  async countByStatusSince(since: Date): Promise<Record<string, number>> {
    const rows = await this.database.query<Array<{ status: string; n: number }>>(
      `SELECT s.status, (SELECT count(*) FROM sync_log l WHERE l.status = s.status AND l.updated_at >= $1)::int AS n
         FROM unnest($2::text[]) AS s(status)`,
      [since, [...SYNC_STATUSES]],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** The automations' project creations finished at or after `since`, per CRM and outcome (succeeded, failed). */
  countProjectCreationsSince(since: Date): Promise<Array<{ crm: string; status: 'succeeded' | 'failed'; n: number }>> {
    return this.database.query(
      `SELECT crm, status, count(*)::int AS n FROM sync_log
        WHERE status IN ('succeeded', 'failed') AND updated_at >= $1 AND kind = 'create_project'
        GROUP BY crm, status`,
      [since],
    );
  }

  /** Entries per kind created at or after `since` (kinds with none left out): one index count per known kind. */
  async countByKindSince(since: Date): Promise<Record<string, number>> {
    const rows = await this.database.query<Array<{ kind: string; n: number }>>(
      `SELECT k.kind, (SELECT count(*) FROM sync_log l WHERE l.kind = k.kind AND l.created_at >= $1)::int AS n
         FROM unnest($2::text[]) AS k(kind)`,
      [since, Object.keys(ACTION_KINDS)],
    );
    return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.kind, r.n]));
  }

  /** Finished entries per UTC hour (by their last change) from the hour of `since` to the current one, zero-filled. */
  countFinishedPerHourSince(since: Date): Promise<HourRow[]> {
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

  /**
   * The funnel's counts per CRM of the entries created at or after `since` (src/funnel/): one pass over the window's
   * entries through the index `sync_log_funnel` (created_at, crm, with kind and status), plus the payloads of the
   * few kinds whose facts are in them (an export, an approval's total). The sale and Sold counted as written are an
   * approval's (their chain carries its `amount`; an export prompt's sale is not a sale made). Amounts are exact
   * decimal text.
   */
  async funnelSince(since: Date, crm: CrmName | null): Promise<FunnelRow[]> {
    return this.database.query<FunnelRow[]>(
      `WITH counts AS (
         SELECT crm,
                count(*) FILTER (WHERE kind = 'create_project')::int AS qualified_entries,
                count(*) FILTER (WHERE kind = 'create_project' AND status = 'succeeded')::int AS created,
                count(*) FILTER (WHERE kind = 'push_drawings' AND status = 'succeeded')::int AS drawings_pushed,
                count(*) FILTER (WHERE kind = 'push_quote' AND status = 'succeeded')::int AS quotes,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                count(*) FILTER (WHERE status NOT IN ('succeeded', 'failed', 'skipped'))::int AS waiting
           FROM sync_log WHERE created_at >= $1 AND crm IS NOT NULL AND ($2::text IS NULL OR crm = $2) GROUP BY crm),
       facts AS (
         SELECT id, crm, kind, status, dedupe_key, payload, created_at FROM sync_log
          WHERE created_at >= $1 AND crm IS NOT NULL AND ($2::text IS NULL OR crm = $2)
            AND kind IN ('push_proposal_pdf', 'attach_pdf', 'push_line_items', 'set_status', 'update_deal')),
       approvals AS (${APPROVALS_OF_FACTS}),
       written AS (
         SELECT crm,
                count(*) FILTER (WHERE kind IN ('push_proposal_pdf', 'attach_pdf') AND status = 'succeeded'
                                   AND NOT (payload ? 'pdf_url' OR payload ? 'pdfUrl'))::int AS exported,
                count(*) FILTER (WHERE kind = 'push_line_items' AND status = 'succeeded' AND payload ? 'amount')::int AS sales,
                sum((payload->>'amount')::numeric) FILTER (WHERE kind = 'push_line_items' AND status = 'succeeded') AS sales_amount,
                count(*) FILTER (WHERE kind = 'set_status' AND status = 'succeeded' AND payload->>'status' = 'Sold' AND payload ? 'amount')::int AS sold,
                count(*) FILTER (WHERE kind = 'update_deal' AND status = 'succeeded' AND payload->>'status' = 'APPROVED')::int AS deals,
                sum((payload->>'amount')::numeric) FILTER (WHERE kind = 'update_deal' AND status = 'succeeded' AND payload->>'status' = 'APPROVED') AS deals_amount
           FROM facts WHERE dedupe_key IS NULL OR dedupe_key NOT LIKE 'revenue:heal:%' GROUP BY crm),
       approved AS (SELECT crm, count(*)::int AS approved, sum(amount::numeric) AS approved_amount FROM approvals GROUP BY crm)
       SELECT c.crm, c.qualified_entries AS "qualifiedEntries", c.created, c.drawings_pushed AS "drawingsPushed",
              COALESCE(w.exported, 0) AS exported, COALESCE(a.approved, 0) AS approved, a.approved_amount::text AS "approvedAmount",
              COALESCE(w.sales, 0) AS sales, w.sales_amount::text AS "salesAmount", COALESCE(w.sold, 0) AS sold,
              COALESCE(w.deals, 0) AS deals, w.deals_amount::text AS "dealsAmount", c.quotes, c.failed, c.waiting
         FROM counts c LEFT JOIN written w USING (crm) LEFT JOIN approved a USING (crm)`,
      [since, crm],
    );
  }

  /** Approvals per CRM and UTC day (the day their first entry was recorded), with their amounts; days with none left out. */
  approvedPerDaySince(since: Date, crm: CrmName | null): Promise<Array<{ crm: CrmName; day: string; approved: number; amount: string | null }>> {
    return this.database.query(
      `WITH facts AS (
         SELECT id, crm, kind, status, dedupe_key, payload, created_at FROM sync_log
          WHERE created_at >= $1 AND crm IS NOT NULL AND ($2::text IS NULL OR crm = $2)
            AND kind IN ('push_proposal_pdf', 'attach_pdf', 'push_line_items', 'set_status', 'update_deal')),
       approvals AS (${APPROVALS_OF_FACTS})
       SELECT crm, to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS approved, sum(amount::numeric)::text AS amount
         FROM approvals GROUP BY 1, 2 ORDER BY 2, 1`,
      [since, crm],
    );
  }

  /**
   * The revenue check's facts of one CRM: per record, its latest approval (the last recorded) whatever became of it (the appointment
   * CRM's approval chain starts with an entry keyed `appointment:approved:<proposal>`; Zoho's are the Deal's update
   * APPROVED and the approved drawing's Quote), and its latest succeeded write of each of `kinds`; only `targets`
   * when given. `settledOnly` leaves out a record with an entry of `kinds` queued or running (what the check compares:
   * its writes are not done, so what it holds is no drift yet, and auto-heal would only repeat them; the entry's finish
   * brings it into the next changes pass).
   */
  revenueFacts(crm: CrmName, kinds: string[], targets: string[] | null, settledOnly = false): Promise<RevenueFact[]> {
    return this.database.query<RevenueFact[]>(
      `SELECT DISTINCT ON (target, role, slot) id::text AS id, target, project_id AS "projectId", kind, status, payload,
              finished_at AS "finishedAt", created_at AS "createdAt", role,
              CASE WHEN role = 'written' THEN NULL
                   WHEN dedupe_key LIKE 'appointment:approved:%' THEN substr(dedupe_key, length('appointment:approved:') + 1)
                   ELSE payload->>'proposalId' END AS "proposalId"
         FROM (
           SELECT id, target, project_id, kind, status, payload, finished_at, created_at, dedupe_key, 'approval' AS role,
                  CASE WHEN crm = 'appointment' THEN 'approval' ELSE kind END AS slot
             FROM sync_log
            WHERE crm = $1 AND kind = ANY($2::text[]) AND target IS NOT NULL AND ($3::text[] IS NULL OR target = ANY($3::text[]))
              AND (dedupe_key LIKE 'appointment:approved:%' OR (kind = 'update_deal' AND payload->>'status' = 'APPROVED')
                   OR (kind = 'push_quote' AND payload ? 'proposalId'))
           UNION ALL
           SELECT id, target, project_id, kind, status, payload, finished_at, created_at, dedupe_key, 'written', kind
             FROM sync_log
            WHERE crm = $1 AND kind = ANY($2::text[]) AND status = 'succeeded' AND target IS NOT NULL
              AND ($3::text[] IS NULL OR target = ANY($3::text[]))) f
        WHERE NOT $4::boolean
           OR f.target NOT IN (SELECT target FROM sync_log
                                WHERE status IN ('queued', 'running') AND crm = $1 AND kind = ANY($2::text[]) AND target IS NOT NULL)
        ORDER BY f.target, f.role, f.slot, f.created_at DESC, f.id DESC`,
      [crm, kinds, targets, settledOnly],
    );
  }

  /** The records of one CRM that entries of these kinds were recorded for, or finished on, at or after `since`. */
  async targetsTouchedSince(crm: CrmName, kinds: string[], since: Date): Promise<string[]> {
    const rows = await this.database.query<Array<{ target: string }>>(
      `SELECT DISTINCT target FROM sync_log WHERE crm = $1 AND kind = ANY($2::text[]) AND updated_at >= $3 AND target IS NOT NULL`,
      [crm, kinds, since],
    );
    return rows.map((r) => r.target);
  }

  /** Seconds since the longest-waiting queued entry was (last) queued; null when none is queued. */
  async oldestQueuedAgeSeconds(): Promise<number | null> {
    const [row] = await this.database.query<Array<{ age: number | null }>>(
      `SELECT floor(extract(epoch FROM now() - min(updated_at)))::int AS age FROM sync_log WHERE status = 'queued'`,
    );
    return row?.age ?? null;
  }

  /** How many failed entries match (for the console's confirmation of a bulk retry). */
  async countFailed(filter: FailedFilter): Promise<number> {
    const where = failedWhere(filter);
    const [row] = await this.database.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM sync_log ${where.sql()}`, where.params);
    return row?.n ?? 0;
  }

  /** The ids of the oldest `limit` failed entries matching. */
  async findOldestFailedIds(filter: FailedFilter, limit: number): Promise<string[]> {
    const where = failedWhere(filter);
    const rows = await this.database.query<Array<{ id: string }>>(
      `SELECT id::text AS id FROM sync_log ${where.sql()} ORDER BY sync_log.id LIMIT ${where.param(limit)}`,
      where.params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Retention: deletes up to `limit` entries finished before `cutoff` that are no parent of an unfinished entry, rows
   * another transaction holds skipped. Answers how many went.
   */
  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    // updated_at is the entry's last write, its finish for a finished entry (an admin's retry makes it queued again).
    const rows = await this.database.returning<{ id: string }>(
      `DELETE FROM sync_log WHERE id IN (
         SELECT s.id FROM sync_log s
          WHERE s.status IN ('succeeded', 'failed', 'skipped', 'waiting') AND s.updated_at < $1 AND COALESCE(s.finished_at, s.updated_at) < $1
            AND NOT EXISTS (SELECT 1 FROM sync_log c WHERE c.parent_id = s.id AND c.status IN ('queued', 'running'))
          ORDER BY s.id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [cutoff, limit],
    );
    return rows.length;
  }

  /** An entry as `crm_sync_record_actions` returns it (jsonb, timestamps as text). */
  private fromJson(json: Record<string, unknown>): SyncLogEntry {
    const row = { ...json };
    for (const column of TIMESTAMP_COLUMNS) if (typeof row[column] === 'string') row[column] = new Date(row[column] as string);
    return rowToEntry(row);
  }
}

/** The column of each field of an entry. */
const ENTRY_COLUMNS: { readonly [K in keyof SyncLogEntry]-?: string } = {
  id: 'id',
  kind: 'kind',
  trigger: 'trigger',
  crm: 'crm',
  projectId: 'project_id',
  target: 'target',
  status: 'status',
  attempts: 'attempts',
  retryBase: 'retry_base',
  error: 'error',
  detail: 'detail',
  payload: 'payload',
  dedupeKey: 'dedupe_key',
  coalesceKey: 'coalesce_key',
  inboxId: 'inbox_id',
  parentId: 'parent_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  durationMs: 'duration_ms',
  enqueuedAt: 'enqueued_at',
  notBefore: 'not_before',
  actor: 'actor',
};

/** A `sync_log` row (`SELECT *`, `RETURNING *`) as an entry; the bigint ids as strings. */
export function rowToEntry(row: Record<string, unknown>): SyncLogEntry {
  const entry = Object.fromEntries(Object.entries(ENTRY_COLUMNS).map(([field, column]) => [field, row[column]])) as unknown as SyncLogEntry;
  entry.id = String(entry.id);
  if (entry.inboxId !== null) entry.inboxId = String(entry.inboxId);
  if (entry.parentId !== null) entry.parentId = String(entry.parentId);
  return entry;
}

/** How long a finishing entry took, from its last run's start (or its recording, when it never ran). */
const DURATION_MS = `GREATEST(0, (EXTRACT(EPOCH FROM now() - COALESCE(started_at, created_at)) * 1000)::int)`;

/** A failed entry queued again with a fresh budget of tries, for the relay to enqueue under a new job id. */
const QUEUED_AGAIN = `status = 'queued', retry_base = attempts, finished_at = NULL, duration_ms = NULL, enqueued_at = NULL,
  not_before = NULL, updated_at = now()`;

const TIMESTAMP_COLUMNS = ['created_at', 'updated_at', 'started_at', 'finished_at', 'enqueued_at', 'not_before'];

function failedWhere(filter: FailedFilter): WhereClause {
  const where = new WhereClause([`status = 'failed'`]);
  if (filter.kind) where.add('kind = ?', filter.kind);
  if (filter.projectId) where.add('project_id = ?', filter.projectId);
  if (filter.crm) where.add('crm = ?', filter.crm);
  if (filter.since) where.add('created_at >= ?', filter.since);
  return where;
}

function toRecordInput(action: NewAction) {
  const status = action.status ?? 'queued';
  return {
    kind: action.kind,
    trigger: action.trigger,
    crm: action.crm,
    project_id: action.projectId,
    target: action.target,
    status,
    payload: action.payload ?? {},
    detail: action.detail ?? null,
    error: action.error?.slice(0, ERROR_MAX) ?? null,
    dedupe_key: action.dedupeKey ?? null,
    // A finished entry holds no coalesce key: nothing can join it.
    coalesce_key: status === 'queued' ? (action.coalesceKey ?? null) : null,
    inbox_id: action.inboxId ?? null,
    parent_id: action.parentId ?? null,
    delay_ms: action.delayMs ?? 0,
    actor: action.actor ?? null,
  };
}
