import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import { WhereClause } from '../database/where-clause.js';
import type { MappingCrm } from '../mappings/mapping.row.js';
import type { Candidate, MappingSuggestion, SuggestionStatus } from './suggestion.row.js';

const COLUMNS = 'id, project_id, crm, status, candidates, looked_for, mapping_id, decided_by, decided_at, created_at, updated_at';

interface SuggestionRow {
  id: string;
  project_id: string;
  crm: MappingCrm;
  status: SuggestionStatus;
  candidates: Candidate[];
  looked_for: string;
  mapping_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toSuggestion = (r: SuggestionRow): MappingSuggestion => ({
  id: String(r.id),
  projectId: r.project_id,
  crm: r.crm,
  status: r.status,
  candidates: r.candidates ?? [],
  lookedFor: r.looked_for,
  mappingId: r.mapping_id === null ? null : String(r.mapping_id),
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Every statement on `mapping_suggestion`. */
@Injectable()
export class SuggestionRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(projectId: string, crm: MappingCrm): Promise<MappingSuggestion | null> {
    const rows = await this.database.query<SuggestionRow[]>(`SELECT ${COLUMNS} FROM mapping_suggestion WHERE project_id = $1 AND crm = $2`, [projectId, crm]);
    return rows[0] ? toSuggestion(rows[0]) : null;
  }

  async findById(id: string): Promise<MappingSuggestion | null> {
    const rows = await this.database.query<SuggestionRow[]>(`SELECT ${COLUMNS} FROM mapping_suggestion WHERE id = $1`, [id]);
    return rows[0] ? toSuggestion(rows[0]) : null;
  }

  /**
   * Keeps what a look found: `open` with candidates, `none` without. A decided suggestion (accepted, dismissed) stays
   * as it is: null then.
   */
  async saveLook(projectId: string, crm: MappingCrm, lookedFor: string, candidates: Candidate[]): Promise<MappingSuggestion | null> {
    const rows = await this.database.returning<SuggestionRow>(
      `INSERT INTO mapping_suggestion (project_id, crm, status, candidates, looked_for)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (project_id, crm) DO UPDATE
          SET status = EXCLUDED.status, candidates = EXCLUDED.candidates, looked_for = EXCLUDED.looked_for, updated_at = now()
        WHERE mapping_suggestion.status NOT IN ('accepted', 'dismissed')
       RETURNING ${COLUMNS}`,
      [projectId, crm, candidates.length > 0 ? 'open' : 'none', JSON.stringify(candidates), lookedFor],
    );
    return rows[0] ? toSuggestion(rows[0]) : null;
  }

  /**
   * Closes the open suggestions whose project has a mapping in that CRM now (mapped meanwhile, by any means). It
   * reads `mapping` in the same statement so that what it closes is mapped at that moment.
   */
  async closeMapped(): Promise<number> {
    const rows = await this.database.returning<{ id: string }>(
      `UPDATE mapping_suggestion s SET status = 'closed', updated_at = now()
        WHERE s.status = 'open' AND EXISTS (SELECT 1 FROM mapping m WHERE m.project_id = s.project_id AND m.crm = s.crm)
       RETURNING s.id`,
    );
    return rows.length;
  }

  /** Moves an open suggestion to a decision (a `changed` one may be dismissed too); null when it is not open (any more). */
  async decide(
    id: string,
    status: 'accepted' | 'dismissed' | 'closed' | 'changed',
    actor: string | null,
    mappingId: string | null = null,
  ): Promise<MappingSuggestion | null> {
    const rows = await this.database.returning<SuggestionRow>(
      `UPDATE mapping_suggestion SET status = $2, decided_by = $3, mapping_id = $4, decided_at = now(), updated_at = now()
        WHERE id = $1 AND (status = 'open' OR (status = 'changed' AND $2 = 'dismissed'))
       RETURNING ${COLUMNS}`,
      [id, status, actor, mappingId],
    );
    return rows[0] ? toSuggestion(rows[0]) : null;
  }

  /** Newest first (`limit` rows; the caller asks one more to tell a next page). */
  async list(filter: { status?: SuggestionStatus; limit: number; cursor?: string }): Promise<MappingSuggestion[]> {
    const where = new WhereClause();
    if (filter.status) where.add('status = ?', filter.status);
    else where.require(`status <> 'none'`);
    if (filter.cursor) where.add('id < ?::bigint', filter.cursor);
    const limit = where.param(filter.limit);
    const rows = await this.database.query<SuggestionRow[]>(
      `SELECT ${COLUMNS} FROM mapping_suggestion ${where.sql()} ORDER BY mapping_suggestion.id DESC LIMIT ${limit}`,
      where.params,
    );
    return rows.map(toSuggestion);
  }
}
