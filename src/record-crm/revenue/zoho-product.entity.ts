import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A service product's Zoho product, found once by `Product_Code` = the product's SKU and kept. */
@Entity('zoho_product')
export class ZohoProductRow {
  @PrimaryColumn({ name: 'sku', type: 'text' })
  sku: string;

  @Column({ name: 'product_id', type: 'text' })
  productId: string;

  @Column({ name: 'found_at', type: 'timestamptz' })
  foundAt: Date;
}
