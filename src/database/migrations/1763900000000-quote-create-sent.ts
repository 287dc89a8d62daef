import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `zoho_quote.create_sent_at`: when a Quote's create was sent and not yet answered. A later run of the drawing's push
 * (its lock lost, its replica gone) looks for that Quote only once Zoho would have applied it: a row may now hold a
 * create under way and no Quote yet (`quote_id` null).
 */
export class QuoteCreateSent1763900000000 implements MigrationInterface {
  name = 'QuoteCreateSent1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE zoho_quote ALTER COLUMN quote_id DROP NOT NULL, ADD COLUMN create_sent_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM zoho_quote WHERE quote_id IS NULL`);
    await q.query(`ALTER TABLE zoho_quote DROP COLUMN create_sent_at, ALTER COLUMN quote_id SET NOT NULL`);
  }
}
