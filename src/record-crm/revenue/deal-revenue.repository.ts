import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import type { DealRevenueRow } from './deal-revenue.row.js';

const COLUMNS = `deal_id AS "dealId", project_id AS "projectId", proposal_id AS "proposalId", amount, stage,
  closing_date AS "closingDate", entry_id::text AS "entryId", written_at AS "writtenAt"`;

/** Every statement on `deal_revenue`: what `update_deal` last wrote to each Deal. */
@Injectable()
export class DealRevenueRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Records a write; a value left alone (null) keeps the one written before. */
  async saveWritten(row: Omit<DealRevenueRow, 'writtenAt'>): Promise<void> {
    await this.database.query(
      `INSERT INTO deal_revenue (deal_id, project_id, proposal_id, amount, stage, closing_date, entry_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (deal_id) DO UPDATE SET
         project_id = COALESCE(EXCLUDED.project_id, deal_revenue.project_id), proposal_id = EXCLUDED.proposal_id,
         amount = COALESCE(EXCLUDED.amount, deal_revenue.amount), stage = COALESCE(EXCLUDED.stage, deal_revenue.stage),
         closing_date = COALESCE(EXCLUDED.closing_date, deal_revenue.closing_date), entry_id = EXCLUDED.entry_id, written_at = now()`,
      [row.dealId, row.projectId, row.proposalId, row.amount, row.stage, row.closingDate, row.entryId],
    );
  }

  /** The Deal of the project written last, or null. */
  async latestOfProject(projectId: string): Promise<DealRevenueRow | null> {
    const rows = await this.database.query<DealRevenueRow[]>(`SELECT ${COLUMNS} FROM deal_revenue WHERE project_id = $1 ORDER BY written_at DESC LIMIT 1`, [
      projectId,
    ]);
    return rows[0] ?? null;
  }

  /** What was last written to each of these Deals (the revenue check's "written" value). */
  async findByDealIds(dealIds: string[]): Promise<DealRevenueRow[]> {
    if (dealIds.length === 0) return [];
    return this.database.query<DealRevenueRow[]>(`SELECT ${COLUMNS} FROM deal_revenue WHERE deal_id = ANY($1::text[])`, [dealIds]);
  }
}
