import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revenue in Zoho (src/record-crm/zoho-product.entity.ts, deal-revenue.entity.ts, zoho-quote.entity.ts): the Zoho
 * product of each SKU once found, what was last written to each Deal, and the Quote of each drawing on a Deal.
 */
export class Revenue1763700014000 implements MigrationInterface {
  name = 'Revenue1763700014000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE zoho_product (
        sku text PRIMARY KEY,
        product_id text NOT NULL,
        found_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE deal_revenue (
        deal_id text PRIMARY KEY,
        project_id text,
        proposal_id text NOT NULL,
        amount text,
        stage text,
        closing_date text,
        entry_id bigint NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX deal_revenue_project_idx ON deal_revenue (project_id, written_at DESC)`);
    await q.query(`
      CREATE TABLE zoho_quote (
        deal_id text NOT NULL,
        drawing_id text NOT NULL,
        quote_id text NOT NULL,
        pushed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (deal_id, drawing_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE zoho_quote`);
    await q.query(`DROP TABLE deal_revenue`);
    await q.query(`DROP TABLE zoho_product`);
  }
}
