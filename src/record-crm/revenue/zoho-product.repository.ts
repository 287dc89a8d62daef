import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';

/** Every statement on `zoho_product`: the Zoho product of each SKU, once found by Product_Code. */
@Injectable()
export class ZohoProductRepository {
  constructor(private readonly database: DatabaseService) {}

  async findBySkus(skus: string[]): Promise<Map<string, string>> {
    if (skus.length === 0) return new Map();
    const rows = await this.database.query<Array<{ sku: string; productId: string }>>(
      `SELECT sku, product_id AS "productId" FROM zoho_product WHERE sku = ANY($1::text[])`,
      [skus],
    );
    return new Map(rows.map((r) => [r.sku, r.productId]));
  }

  async save(sku: string, productId: string): Promise<void> {
    await this.database.query(
      `INSERT INTO zoho_product (sku, product_id) VALUES ($1, $2)
       ON CONFLICT (sku) DO UPDATE SET product_id = EXCLUDED.product_id, found_at = now()`,
      [sku, productId],
    );
  }

  /** Forgets products Zoho no longer knows (a Quote refused them), so the next push looks them up again. */
  async forget(productIds: string[]): Promise<void> {
    if (productIds.length === 0) return;
    await this.database.query(`DELETE FROM zoho_product WHERE product_id = ANY($1::text[])`, [productIds]);
  }
}
