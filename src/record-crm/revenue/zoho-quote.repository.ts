import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';

/** Every statement on `zoho_quote`: the Quote of each drawing on a Deal. */
@Injectable()
export class ZohoQuoteRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(dealId: string, drawingId: string): Promise<string | null> {
    const rows = await this.database.query<Array<{ quoteId: string }>>(`SELECT quote_id AS "quoteId" FROM zoho_quote WHERE deal_id = $1 AND drawing_id = $2`, [
      dealId,
      drawingId,
    ]);
    return rows[0]?.quoteId ?? null;
  }

  async save(dealId: string, drawingId: string, quoteId: string): Promise<void> {
    await this.database.query(
      `INSERT INTO zoho_quote (deal_id, drawing_id, quote_id) VALUES ($1, $2, $3)
       ON CONFLICT (deal_id, drawing_id) DO UPDATE SET quote_id = EXCLUDED.quote_id, pushed_at = now()`,
      [dealId, drawingId, quoteId],
    );
  }
}
