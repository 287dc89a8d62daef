import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';

/** Every statement on `zoho_quote`: the Quote of each drawing on a Deal, and a create of it still unanswered. */
@Injectable()
export class ZohoQuoteRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(dealId: string, drawingId: string): Promise<string | null> {
    const rows = await this.database.query<Array<{ quoteId: string | null }>>(
      `SELECT quote_id AS "quoteId" FROM zoho_quote WHERE deal_id = $1 AND drawing_id = $2`,
      [dealId, drawingId],
    );
    return rows[0]?.quoteId ?? null;
  }

  /** The Quote made or found: remembered, and no create of it is under way any more. */
  async save(dealId: string, drawingId: string, quoteId: string): Promise<void> {
    await this.database.query(
      `INSERT INTO zoho_quote (deal_id, drawing_id, quote_id) VALUES ($1, $2, $3)
       ON CONFLICT (deal_id, drawing_id) DO UPDATE SET quote_id = EXCLUDED.quote_id, pushed_at = now(), create_sent_at = NULL`,
      [dealId, drawingId, quoteId],
    );
  }

  /** A create of the drawing's Quote is about to be sent. */
  async createSent(dealId: string, drawingId: string): Promise<void> {
    await this.database.query(
      `INSERT INTO zoho_quote (deal_id, drawing_id, create_sent_at) VALUES ($1, $2, now())
       ON CONFLICT (deal_id, drawing_id) DO UPDATE SET create_sent_at = now()`,
      [dealId, drawingId],
    );
  }

  /** Zoho answered the create with a refusal: it made no Quote, so no later run waits for it to land. */
  async createRefused(dealId: string, drawingId: string): Promise<void> {
    await this.database.query(`UPDATE zoho_quote SET create_sent_at = NULL WHERE deal_id = $1 AND drawing_id = $2`, [dealId, drawingId]);
  }

  /** When the last create of the drawing's Quote was sent, if no run has heard of its Quote since. */
  async unansweredCreate(dealId: string, drawingId: string): Promise<Date | null> {
    const rows = await this.database.query<Array<{ sentAt: Date | null }>>(
      `SELECT create_sent_at AS "sentAt" FROM zoho_quote WHERE deal_id = $1 AND drawing_id = $2`,
      [dealId, drawingId],
    );
    return rows[0]?.sentAt ?? null;
  }
}
