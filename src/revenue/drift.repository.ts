import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { WhereClause } from '../database/where-clause.js';
import type { CrmName } from '../domain/actions.js';
import { HEAL_ACTION, type DriftFilter, type DriftRow, type RecordCheck } from './drift.js';

/** The row's columns as DriftRow names them, of the table (or the alias) `t`. */
function columns(t = 'revenue_drift'): string {
  return `${t}.id::text AS id, ${t}.project_id AS "projectId", ${t}.proposal_id AS "proposalId", ${t}.crm, ${t}.target, ${t}.kind, ${t}.state,
  ${t}.service_value AS "serviceValue", ${t}.written_value AS "writtenValue", ${t}.written_entry_id::text AS "writtenEntryId",
  ${t}.crm_value AS "crmValue", ${t}.changed_by AS "changedBy", ${t}.changed_at AS "changedAt", ${t}.by_crm_sync AS "byCrmSync", ${t}.link,
  ${t}.heal_kind AS "healKind", ${t}.approval_entry_id::text AS "approvalEntryId", ${t}.heal_entry_id::text AS "healEntryId", ${t}.accepted_service_value AS "acceptedServiceValue",
  ${t}.decided_by AS "decidedBy", ${t}.decided_at AS "decidedAt", ${t}.found_at AS "foundAt", ${t}.seen_at AS "seenAt"`;
}
const COLUMNS = columns();

/**
 * A drift kept in its decided state by a check that still finds the difference: accepted while the service's value is
 * the one accepted; healed, when no check has seen it since the heal was asked and the CRM's record has not changed
 * since either (the heal may still be queued or retrying; the next check raises it if the difference is still there,
 * and a change made after the heal was asked, or in its second, since CRMs stamp to the second, raises it at once).
 */
const KEPT = `((d.state = 'accepted' AND d.accepted_service_value IS NOT DISTINCT FROM EXCLUDED.service_value)
  OR (d.state = 'healed' AND d.heal_entry_id IS NOT NULL AND d.seen_at <= d.decided_at
      AND (EXCLUDED.changed_at IS NULL OR EXCLUDED.changed_at < date_trunc('second', d.decided_at))))`;

/** What a check did to a drift: raised it (new, or back after it was healed or its service value changed). */
export interface Settled {
  raised: DriftRow[];
}

/** Every statement on `revenue_drift`. */
@Injectable()
export class DriftRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Records what the check saw of some records, in one transaction: each finding updates the drift of its record and
   * kind (a new one, or one healed before, is raised: `open`; an accepted one stays accepted while the service's value
   * is the one accepted); a kind compared and found in agreement ends its open drift (`healed`).
   */
  async settle(checks: RecordCheck[]): Promise<Settled> {
    if (checks.length === 0) return { raised: [] };
    const findings = checks.flatMap((c) => c.findings);
    const agreed = checks.flatMap((c) =>
      c.checked.filter((k) => !c.findings.some((f) => f.kind === k)).map((kind) => ({ crm: c.crm, target: c.target, kind })),
    );
    return this.database.transaction(async (manager) => {
      if (agreed.length > 0) {
        await manager.query(
          `UPDATE revenue_drift d SET state = 'healed', seen_at = now()
             FROM unnest($1::text[], $2::text[], $3::text[]) AS a (crm, target, kind)
            WHERE d.crm = a.crm AND d.target = a.target AND d.kind = a.kind AND d.state <> 'healed'`,
          [agreed.map((a) => a.crm), agreed.map((a) => a.target), agreed.map((a) => a.kind)],
        );
      }
      if (findings.length === 0) return { raised: [] };
      const rows: DriftRow[] = await manager.query(
        `WITH f AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS f (crm text, target text, "projectId" text, "proposalId" text, kind text,
             "serviceValue" text, "writtenValue" text, "writtenEntryId" text, "crmValue" text, "changedBy" text, "changedAt" timestamptz,
             "byCrmSync" boolean, link text, "healKind" text, "approvalEntryId" text)),
         before AS (SELECT d.id, d.state, d.accepted_service_value FROM revenue_drift d JOIN f ON d.crm = f.crm AND d.target = f.target AND d.kind = f.kind),
         upserted AS (
           INSERT INTO revenue_drift AS d (crm, target, project_id, proposal_id, kind, service_value, written_value, written_entry_id, crm_value,
                                           changed_by, changed_at, by_crm_sync, link, heal_kind, approval_entry_id)
           SELECT crm, target, "projectId", "proposalId", kind, "serviceValue", "writtenValue", "writtenEntryId"::bigint, "crmValue",
                  "changedBy", "changedAt", "byCrmSync", link, "healKind", "approvalEntryId"::bigint FROM f
           ON CONFLICT (crm, target, kind) DO UPDATE SET
             project_id = EXCLUDED.project_id, proposal_id = EXCLUDED.proposal_id, service_value = EXCLUDED.service_value,
             written_value = EXCLUDED.written_value, written_entry_id = EXCLUDED.written_entry_id, crm_value = EXCLUDED.crm_value,
             changed_by = EXCLUDED.changed_by, changed_at = EXCLUDED.changed_at, by_crm_sync = EXCLUDED.by_crm_sync, link = EXCLUDED.link,
             heal_kind = EXCLUDED.heal_kind, approval_entry_id = EXCLUDED.approval_entry_id, seen_at = now(),
             state = CASE WHEN ${KEPT} THEN d.state ELSE 'open' END,
             found_at = CASE WHEN d.state = 'open' OR ${KEPT} THEN d.found_at ELSE now() END,
             decided_by = CASE WHEN ${KEPT} THEN d.decided_by END,
             decided_at = CASE WHEN ${KEPT} THEN d.decided_at END
           RETURNING d.*)
         SELECT ${columns('u')}, b.state IS NULL OR (b.state <> 'open' AND u.state = 'open') AS raised
           FROM upserted u LEFT JOIN before b ON b.id = u.id`,
        [JSON.stringify(findings.map((f) => ({ ...f, healKind: HEAL_ACTION[f.kind], changedAt: f.changedAt?.toISOString() ?? null })))],
      );
      return { raised: (rows as Array<DriftRow & { raised: boolean }>).filter((r) => r.raised).map(({ raised: _raised, ...row }) => row as DriftRow) };
    });
  }

  async get(id: string): Promise<DriftRow | null> {
    if (!/^\d{1,19}$/.test(id)) return null;
    const rows = await this.database.query<DriftRow[]>(`SELECT ${COLUMNS} FROM revenue_drift WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Newest first by id, after the cursor (keyset pages). */
  async list(filter: DriftFilter, limit: number, cursor?: string): Promise<DriftRow[]> {
    const where = whereOf(filter);
    if (cursor) where.add('revenue_drift.id < ?::bigint', cursor);
    const sql = `SELECT ${COLUMNS} FROM revenue_drift ${where.sql()} ORDER BY revenue_drift.id DESC LIMIT ${where.param(limit)}`;
    return this.database.query<DriftRow[]>(sql, where.params);
  }

  /** The ids of the drifts a filter takes, oldest first, up to `limit`, in the states given. */
  async idsOf(filter: DriftFilter, states: string[], limit: number): Promise<string[]> {
    const where = whereOf(filter);
    where.add('state = ANY(?::text[])', states);
    const rows = await this.database.query<Array<{ id: string }>>(
      `SELECT id::text AS id FROM revenue_drift ${where.sql()} ORDER BY revenue_drift.id LIMIT ${where.param(limit)}`,
      where.params,
    );
    return rows.map((r) => r.id);
  }

  /** Heal asked for: the entry that writes the service's value again. */
  async markHealing(id: string, entryId: string, actor: string | null): Promise<void> {
    await this.database.query(`UPDATE revenue_drift SET state = 'healed', heal_entry_id = $2, decided_by = $3, decided_at = now() WHERE id = $1`, [
      id,
      entryId,
      actor,
    ]);
  }

  /** Theirs accepted: nothing is raised again until the service's value differs from the one accepted now. */
  async accept(id: string, actor: string | null): Promise<DriftRow | null> {
    const rows = await this.database.returning<DriftRow>(
      `UPDATE revenue_drift SET state = 'accepted', accepted_service_value = service_value, decided_by = $2, decided_at = now()
        WHERE id = $1 AND state = 'open' RETURNING ${COLUMNS}`,
      [id, actor],
    );
    return rows[0] ?? null;
  }

  /** Every open drift's CRM, proposal and kind (the Revenue screen's counts). */
  async open(): Promise<Array<{ crm: CrmName; proposalId: string; kind: string }>> {
    return this.database.query(`SELECT crm, proposal_id AS "proposalId", kind FROM revenue_drift WHERE state = 'open' ORDER BY revenue_drift.id`);
  }
}

function whereOf(filter: DriftFilter): WhereClause {
  const where = new WhereClause();
  if (filter.crm) where.add('crm = ?', filter.crm);
  if (filter.kind) where.add('kind = ?', filter.kind);
  if (filter.state) where.add('state = ?', filter.state);
  if (filter.projectId) where.add('project_id = ?', filter.projectId);
  return where;
}
