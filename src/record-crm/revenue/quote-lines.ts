import type { LineItem, LineItemsResult } from '../../service-api/service-api.types.js';
import { divideUp, parseDecimal, timesQuantity, toCents, type Decimal } from './money.js';
import { planTaxes, type OrgTax, type QuoteTax } from './quote-taxes.js';

/** One row of a Quote's Quoted_Items, in cents: Zoho's net of the row (gross − discount) is the service's item total. */
export interface QuoteLine {
  productId: string;
  description: string;
  quantity: Decimal;
  listPriceCents: bigint;
  discountCents: bigint;
  /** The service's item total: what Zoho makes of the row, `round(list price × quantity) − discount`. */
  totalCents: bigint;
}

/** A drawing's line items as a Quote, every figure in cents, such that Zoho's Grand_Total is the service's total. */
export interface QuoteDraft {
  lines: QuoteLine[];
  /** Items no Zoho product stands for (and no fallback product): left out, by name. */
  leftOut: string[];
  /** Items Zoho cannot hold as a row (no positive quantity or a negative total): their amount is in the adjustment. */
  folded: string[];
  subTotalCents: bigint;
  discountCents: bigint;
  /** Zoho's tax of the Quote: computed by Zoho from `lineTaxes` (quote-taxes.ts). */
  taxCents: bigint;
  /** The org's taxes sent as the Quote's `$line_tax`. */
  lineTaxes: QuoteTax[];
  /** How the service's taxes were matched to the org's. */
  taxesMatched: string[];
  /** The service's taxes the org has none for (name and amount): in the adjustment. */
  taxesInAdjustment: string[];
  /** The service's markup and any difference its own figures leave, so that the totals agree to the cent. */
  adjustmentCents: bigint;
  grandTotalCents: bigint;
}

/**
 * The Quote for a drawing's line items (D2). Each item becomes a row whose net is the service's item total: the list
 * price is the item's unit price (or, for a custom price item, its total spread over the quantity, rounded up), and
 * the row's discount takes up the difference (never negative: a total above price × quantity raises the list price).
 * The Quote's discount is the service's discount, its taxes the org's taxes that match the service's (planTaxes); the
 * markup, which Zoho has no field for, a tax the org lacks, and whatever rounding the service's own figures (or Zoho's
 * tax computed on them) carry go into the adjustment. `productOf` names the Zoho product of an item, or null.
 */
export function quoteFromLineItems(result: LineItemsResult, productOf: (item: LineItem) => string | null, orgTaxes: readonly OrgTax[] = []): QuoteDraft {
  const lines: QuoteLine[] = [];
  const leftOut: string[] = [];
  const folded: string[] = [];
  let leftOutCents = 0n;
  for (const item of result.line_items ?? []) {
    const totalCents = toCents(item.total);
    const quantity = parseDecimal(item.quantity);
    if (quantity.units <= 0n || totalCents < 0n) {
      folded.push(item.name);
      continue;
    }
    const productId = productOf(item);
    if (productId === null) {
      leftOut.push(item.name);
      leftOutCents += totalCents;
      continue;
    }
    lines.push({ productId, description: item.name, quantity, ...priceOf(item, quantity, totalCents), totalCents });
  }
  const subTotalCents = lines.reduce((sum, line) => sum + line.totalCents, 0n);
  const serviceDiscount = toCents(result.discount ?? 0);
  // The service writes a discount as a negative amount; Zoho's Discount is the amount taken off.
  const discountCents = serviceDiscount < 0n ? -serviceDiscount : 0n;
  const taxes = planTaxes(result, orgTaxes, subTotalCents - discountCents);
  const taxCents = taxes.taxCents;
  const adjustmentCents = toCents(result.total) - (subTotalCents + leftOutCents - discountCents + taxCents);
  const grandTotalCents = subTotalCents - discountCents + taxCents + adjustmentCents;
  return {
    lines,
    leftOut,
    folded,
    subTotalCents,
    discountCents,
    taxCents,
    lineTaxes: taxes.lineTaxes,
    taxesMatched: taxes.matched,
    taxesInAdjustment: taxes.inAdjustment,
    adjustmentCents,
    grandTotalCents,
  };
}

function priceOf(item: LineItem, quantity: Decimal, totalCents: bigint): { listPriceCents: bigint; discountCents: bigint } {
  const spread = () => divideUp(totalCents * 10n ** BigInt(quantity.scale), quantity.units);
  let listPriceCents = item.price === null || item.price === undefined ? spread() : toCents(item.price);
  if (timesQuantity(listPriceCents, quantity) < totalCents) listPriceCents = spread();
  return { listPriceCents, discountCents: timesQuantity(listPriceCents, quantity) - totalCents };
}
