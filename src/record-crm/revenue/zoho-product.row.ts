/** A service product's Zoho product, found once by `Product_Code` = the product's SKU and kept. */
export interface ZohoProductRow {
  sku: string;
  productId: string;
  foundAt: Date;
}
