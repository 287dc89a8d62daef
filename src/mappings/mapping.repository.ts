import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import { WhereClause } from '../database/where-clause.js';
import type { CrmTarget } from './crm-target.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import type { MappingInput } from './dto/mapping-input.dto.js';
import { MAPPING_COLUMNS, rowToMapping, type MappingRow } from './mapping-rows.js';
import type { Mapping, MappingCrm, MappingSource, MappingStatus } from './mapping.row.js';

export interface MappingListFilter {
  crm?: MappingCrm;
  status?: MappingStatus;
  projectId?: string;
  /** How many rows to read (a page and one more, to tell whether there is a next page). */
  limit: number;
  /** The id of the last mapping of the previous page. */
  cursor?: string;
}

/** A mapping an answer of the service settled as failed, with the reason. */
export interface FailedMapping {
  id: string;
  error: string;
}

/** Statuses of a mapping whose project the daemon works for (a failed mapping no longer counts). */
const MAPPED = `status IN ('pending', 'associated')`;

/**
 * Every statement on `mapping`. Methods taking an EntityManager run in the caller's transaction (a claim records its
 * action and marks the rows it took together).
 */
@Injectable()
export class MappingRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Inserts the inputs in one statement; those colliding with an existing mapping (or an earlier input) are left out. */
  async insertMany(inputs: MappingInput[], source: MappingSource = 'admin'): Promise<Mapping[]> {
    const col = <K extends keyof MappingInput>(k: K) => inputs.map((i) => i[k]);
    const rows = await this.database.query<MappingRow[]>(
      `INSERT INTO mapping (crm, appointment_id, record_crm_module, record_crm_record_id, project_id, crm_record_name, status, source)
       SELECT t.crm, t.appointment_id, t.record_crm_module, t.record_crm_record_id, t.project_id, t.crm_record_name, 'pending', $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
              AS t(crm, appointment_id, record_crm_module, record_crm_record_id, project_id, crm_record_name, n)
        ORDER BY t.n
       ON CONFLICT DO NOTHING
       RETURNING ${MAPPING_COLUMNS}`,
      [
        col('crm'),
        col('appointmentId'),
        col('recordCrmModule'),
        col('recordCrmRecordId'),
        col('projectId'),
        inputs.map((i) => i.crmRecordName ?? null),
        source,
      ],
    );
    return rows.map(rowToMapping);
  }

  /** The names kept for these CRM targets (an appointment id, or `Module/record id`), by `crm:target`. */
  async recordNamesOf(targets: CrmTarget[]): Promise<Map<string, string>> {
    const appointments = targets.filter((t) => t.crm === 'appointment').map((t) => t.target);
    const records = targets.filter((t) => t.crm === 'record').map((t) => t.target.split('/'));
    const rows = await this.database.query<Array<{ key: string; name: string }>>(
      `SELECT crm || ':' || CASE crm WHEN 'appointment' THEN appointment_id ELSE record_crm_module || '/' || record_crm_record_id END AS key,
              crm_record_name AS name
         FROM mapping
        WHERE crm_record_name IS NOT NULL
          AND ((crm = 'appointment' AND appointment_id = ANY($1::text[]))
           OR (crm = 'record' AND (record_crm_module, record_crm_record_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))))`,
      [appointments, records.map((r) => r[0]), records.map((r) => r.slice(1).join('/'))],
    );
    return new Map(rows.map((r) => [r.key, r.name]));
  }

  /** The web addresses kept for these CRM targets (appointments whose CRM gave one), by `crm:target`. */
  async recordUrlsOf(targets: CrmTarget[]): Promise<Map<string, string>> {
    const appointments = targets.filter((t) => t.crm === 'appointment').map((t) => t.target);
    if (appointments.length === 0) return new Map();
    const rows = await this.database.query<Array<{ key: string; url: string }>>(
      `SELECT 'appointment:' || appointment_id AS key, crm_record_url AS url FROM mapping
        WHERE crm = 'appointment' AND crm_record_url IS NOT NULL AND appointment_id = ANY($1::text[])`,
      [appointments],
    );
    return new Map(rows.map((r) => [r.key, r.url]));
  }

  /** Keeps the web address of the mappings' CRM record (read from the CRM). */
  async setRecordUrl(mappingIds: string[], url: string): Promise<void> {
    await this.database.query(`UPDATE mapping SET crm_record_url = $2 WHERE id = ANY($1::bigint[]) AND crm_record_url IS DISTINCT FROM $2`, [mappingIds, url]);
  }

  /** Keeps the CRM record's name (read from the CRM) on the mappings of that record. */
  async setRecordName(mappingIds: string[], name: string): Promise<void> {
    await this.database.query(`UPDATE mapping SET crm_record_name = $2 WHERE id = ANY($1::bigint[]) AND crm_record_name IS DISTINCT FROM $2`, [
      mappingIds,
      name,
    ]);
  }

  /** Existing mappings that could be in the way of these inputs: same appointment, same record, or same project and CRM. */
  async findConflicting(inputs: MappingInput[]): Promise<Mapping[]> {
    const appointments = inputs.filter((i) => i.crm === 'appointment');
    const records = inputs.filter((i) => i.crm === 'record');
    const rows = await this.database.query<MappingRow[]>(
      `SELECT ${MAPPING_COLUMNS} FROM mapping
        WHERE (crm = 'appointment' AND appointment_id = ANY($1::text[]))
           OR (crm = 'appointment' AND project_id = ANY($2::text[]))
           OR (crm = 'record' AND (record_crm_module, record_crm_record_id) IN (SELECT * FROM unnest($3::text[], $4::text[])))
           OR (crm = 'record' AND project_id = ANY($5::text[]))
        ORDER BY mapping.id`,
      [
        appointments.map((i) => i.appointmentId),
        appointments.map((i) => i.projectId),
        records.map((i) => i.recordCrmModule),
        records.map((i) => i.recordCrmRecordId),
        records.map((i) => i.projectId),
      ],
    );
    return rows.map(rowToMapping);
  }

  async findById(id: string): Promise<Mapping | null> {
    return this.findOne(`id = $1`, [id]);
  }

  /** The project's mapping of this CRM, whatever its state. */
  findByProject(crm: MappingCrm, projectId: string): Promise<Mapping | null> {
    return this.findOne(`crm = $1 AND project_id = $2`, [crm, projectId]);
  }

  findByAppointment(appointmentId: string): Promise<Mapping | null> {
    return this.findOne(`crm = 'appointment' AND appointment_id = $1`, [appointmentId]);
  }

  findByRecord(module: RecordModule, recordId: string): Promise<Mapping | null> {
    return this.findOne(`crm = 'record' AND record_crm_module = $1 AND record_crm_record_id = $2`, [module, recordId]);
  }

  /** Every mapping of a project, oldest first. */
  async findAllByProject(projectId: string): Promise<Mapping[]> {
    const rows = await this.database.query<MappingRow[]>(`SELECT ${MAPPING_COLUMNS} FROM mapping WHERE project_id = $1 ORDER BY mapping.id`, [projectId]);
    return rows.map(rowToMapping);
  }

  /** Newest first, `filter.limit` rows at most. */
  async list(filter: MappingListFilter): Promise<Mapping[]> {
    const where = new WhereClause();
    if (filter.crm) where.add('crm = ?', filter.crm);
    if (filter.status) where.add('status = ?', filter.status);
    if (filter.projectId) where.add('project_id = ?', filter.projectId);
    if (filter.cursor) where.add('id < ?::bigint', filter.cursor);
    const limit = where.param(filter.limit);
    const rows = await this.database.query<MappingRow[]>(
      `SELECT ${MAPPING_COLUMNS} FROM mapping ${where.sql()} ORDER BY mapping.id DESC LIMIT ${limit}`,
      where.params,
    );
    return rows.map(rowToMapping);
  }

  /** False when there was none. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.database.returning(`DELETE FROM mapping WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  /** Pending mappings, of one CRM and one project when given. */
  async countPending(filter: { crm?: MappingCrm; projectId?: string }): Promise<number> {
    const rows = await this.database.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM mapping WHERE status = 'pending' AND ($1::text IS NULL OR crm = $1) AND ($2::text IS NULL OR project_id = $2)`,
      [filter.crm ?? null, filter.projectId ?? null],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Takes up to `limit` pending mappings no action holds, after mapping `after` in id order, locked FOR UPDATE SKIP
   * LOCKED in the caller's transaction (rows another claim holds are skipped: that one takes them).
   */
  async lockUnclaimedPending(manager: EntityManager, crm: MappingCrm, projectId: string | null, after: string, limit: number): Promise<Mapping[]> {
    const rows: MappingRow[] = await manager.query(
      `SELECT ${MAPPING_COLUMNS} FROM mapping
        WHERE crm = $1 AND status = 'pending' AND claimed_by IS NULL AND ($2::text IS NULL OR project_id = $2) AND id > $4
        ORDER BY mapping.id LIMIT $3
        FOR UPDATE SKIP LOCKED`,
      [crm, projectId, limit, after],
    );
    return rows.map(rowToMapping);
  }

  /** Marks the mappings as held by one action (an A2 chunk). */
  async claimForEntry(manager: EntityManager, entryId: string, mappingIds: string[]): Promise<void> {
    await manager.query(`UPDATE mapping SET claimed_by = $1, updated_at = now() WHERE id = ANY($2::bigint[])`, [entryId, mappingIds]);
  }

  /** Marks each mapping as held by its own action (`entryIds[i]` holds `mappingIds[i]`). */
  async claimEach(manager: EntityManager, mappingIds: string[], entryIds: string[]): Promise<void> {
    await manager.query(
      `UPDATE mapping m SET claimed_by = c.entry_id, updated_at = now() FROM unnest($1::bigint[], $2::bigint[]) AS c(mapping_id, entry_id) WHERE m.id = c.mapping_id`,
      [mappingIds, entryIds],
    );
  }

  /**
   * Takes an action's mappings for a run: pending ones no other action holds, and failed ones (an admin's retry of
   * the action sends those again); they are pending again until the answer settles them. In id order.
   */
  async claimForAssociation(entryId: string, mappingIds: string[], crm: MappingCrm): Promise<Mapping[]> {
    const rows = await this.database.returning<MappingRow>(
      `UPDATE mapping SET claimed_by = $1, status = 'pending', error = NULL, updated_at = now()
        WHERE id = ANY($2::bigint[]) AND crm = $3 AND status IN ('pending', 'failed') AND (claimed_by IS NULL OR claimed_by = $1)
        RETURNING ${MAPPING_COLUMNS}`,
      [entryId, mappingIds, crm],
    );
    return rows.map(rowToMapping).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  /**
   * Settles an A2 answer in one transaction: each mapping the action holds becomes associated, failed (with its
   * reason), or is left pending and released.
   */
  async settleAssociation(entryId: string, outcome: { associated: string[]; failed: FailedMapping[]; leftPending: string[] }): Promise<void> {
    const { associated, failed, leftPending } = outcome;
    await this.database.transaction(async (manager) => {
      if (associated.length > 0) {
        await manager.query(
          `UPDATE mapping SET status = 'associated', error = NULL, claimed_by = NULL, updated_at = now() WHERE id = ANY($1::bigint[]) AND claimed_by = $2`,
          [associated, entryId],
        );
      }
      if (failed.length > 0) {
        await manager.query(
          `UPDATE mapping m SET status = 'failed', error = f.error, claimed_by = NULL, updated_at = now()
             FROM unnest($1::bigint[], $2::text[]) AS f(id, error) WHERE m.id = f.id AND m.claimed_by = $3`,
          [failed.map((f) => f.id), failed.map((f) => f.error), entryId],
        );
      }
      if (leftPending.length > 0) {
        await manager.query(`UPDATE mapping SET claimed_by = NULL, updated_at = now() WHERE id = ANY($1::bigint[]) AND claimed_by = $2`, [
          leftPending,
          entryId,
        ]);
      }
    });
  }

  /** One mapping the action holds is associated. */
  async markAssociated(id: string, entryId: string): Promise<void> {
    await this.database.query(
      `UPDATE mapping SET status = 'associated', error = NULL, claimed_by = NULL, updated_at = now() WHERE id = $1 AND claimed_by = $2`,
      [id, entryId],
    );
  }

  /** One mapping the action holds failed, with the reason. */
  async markFailed(id: string, entryId: string, error: string): Promise<void> {
    await this.database.query(`UPDATE mapping SET status = 'failed', error = $2, claimed_by = NULL, updated_at = now() WHERE id = $1 AND claimed_by = $3`, [
      id,
      error,
      entryId,
    ]);
  }

  /** Gives back the pending mappings an action holds. */
  async releaseClaimsOf(entryId: string): Promise<void> {
    await this.database.query(`UPDATE mapping SET claimed_by = NULL, updated_at = now() WHERE claimed_by = $1 AND status = 'pending'`, [entryId]);
  }

  /**
   * Gives back pending mappings held by an action that has finished; answers how many. The entry's state is read in
   * the same statement on purpose: a claim being made concurrently is never released, as the entry must be visibly
   * finished (a claim committed meanwhile names an entry this statement cannot see, so EXISTS is false), and finished
   * after the mapping was claimed (an admin's retry re-claims with a newer updated_at than the entry's earlier finish).
   */
  async releaseClaimsOfFinishedEntries(): Promise<number> {
    const rows = await this.database.returning(
      `UPDATE mapping m SET claimed_by = NULL, updated_at = now()
        WHERE m.status = 'pending' AND m.claimed_by IS NOT NULL
          AND EXISTS (SELECT 1 FROM sync_log s
                       WHERE s.id = m.claimed_by AND s.status IN ('succeeded', 'failed', 'skipped') AND s.finished_at >= m.updated_at)
        RETURNING m.id`,
    );
    return rows.length;
  }

  /** Which of these appointments have a mapping, whatever its state. */
  async findAppointmentsMappedAmong(appointmentIds: string[]): Promise<Set<string>> {
    const rows = await this.database.query<Array<{ id: string }>>(
      `SELECT appointment_id AS id FROM mapping WHERE crm = 'appointment' AND appointment_id = ANY($1::text[])`,
      [appointmentIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Which of these records of a module have a mapping, whatever its state. */
  async findRecordsMappedAmong(module: RecordModule, recordIds: string[]): Promise<Set<string>> {
    const rows = await this.database.query<Array<{ id: string }>>(
      `SELECT record_crm_record_id AS id FROM mapping WHERE crm = 'record' AND record_crm_module = $1 AND record_crm_record_id = ANY($2::text[])`,
      [module, recordIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Which of these projects have a pending or associated mapping. */
  async findMappedProjectsAmong(projectIds: string[]): Promise<Set<string>> {
    const rows = await this.database.query<Array<{ project_id: string }>>(
      `SELECT DISTINCT project_id FROM mapping WHERE ${MAPPED} AND project_id = ANY($1::text[])`,
      [[...new Set(projectIds)]],
    );
    return new Set(rows.map((r) => r.project_id));
  }

  /** Mapped projects after `after` in byte order of their ids (`COLLATE "C"`: the same order on every server). */
  async findMappedProjectsAfter(after: string | null, limit: number): Promise<string[]> {
    const rows = await this.database.query<Array<{ project_id: string }>>(
      `SELECT DISTINCT project_id COLLATE "C" AS project_id FROM mapping
        WHERE ${MAPPED} AND ($1::text IS NULL OR project_id COLLATE "C" > $1::text COLLATE "C")
        ORDER BY 1 LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => r.project_id);
  }

  async countMappedProjects(): Promise<number> {
    const [row] = await this.database.query<Array<{ n: string }>>(`SELECT count(DISTINCT project_id) AS n FROM mapping WHERE ${MAPPED}`);
    return Number(row.n);
  }

  /** Mappings made at or after `since`, per CRM, with how many are associated (for the funnel). */
  countCreatedSince(since: Date): Promise<Array<{ crm: MappingCrm; mapped: number; associated: number }>> {
    return this.database.query(
      `SELECT crm, count(*)::int AS mapped, count(*) FILTER (WHERE status = 'associated')::int AS associated
         FROM mapping WHERE created_at >= $1 GROUP BY crm`,
      [since],
    );
  }

  private async findOne(condition: string, params: unknown[]): Promise<Mapping | null> {
    const [row] = await this.database.query<MappingRow[]>(`SELECT ${MAPPING_COLUMNS} FROM mapping WHERE ${condition} LIMIT 1`, params);
    return row ? rowToMapping(row) : null;
  }
}
