import type { LineItemsResult } from '../../service-api/service-api.types.js';
import type { OrgTax } from '../zoho/zoho-revenue.client.js';
import { centsText, divideRounded, parseDecimal, toCents, type Decimal } from './money.js';

export type { OrgTax } from '../zoho/zoho-revenue.client.js';

/** A tax sent on the Quote (`$line_tax`), as the org has it. */
export interface QuoteTax {
  id: string;
  name: string;
  percentage: Decimal;
}

/** How the service's taxes go onto a Quote. */
export interface TaxPlan {
  /** The org's taxes that stand for the service's, sent as the Quote's `$line_tax`. */
  lineTaxes: QuoteTax[];
  /** What Zoho computes of them on the Quote's taxable amount (`Sub_Total − Discount`). */
  taxCents: bigint;
  /** The service's taxes the org has none for, with their amount: that amount goes into the Adjustment. */
  inAdjustment: string[];
  /** How each tax was matched, for the entry's detail (`VAT by name`, `State tax by its rate as Sales Tax 8.25 %`). */
  matched: string[];
}

/** Zoho's tax of an amount at a rate, rounded at the cent. */
export function taxOf(baseCents: bigint, percentage: Decimal): bigint {
  return divideRounded(baseCents * percentage.units, 100n * 10n ** BigInt(percentage.scale));
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The service's taxes as Zoho models a Quote's taxes: `$line_tax`, percentages of the org's own taxes, from which Zoho
 * computes `Tax` itself (no Zoho example writes `Tax` as an input). Each service tax is matched to an org tax by its
 * name, else by the rate its total implies on the service's taxable amount (its subtotal less its discount, with or
 * without its markup; within a cent); each org tax stands for one service tax at most. A service tax the org has no
 * tax for is not sent: its amount goes into the Adjustment (the caller's adjustment takes up whatever Zoho's tax and
 * the service's differ by), and the entry says so.
 */
export function planTaxes(result: LineItemsResult, orgTaxes: readonly OrgTax[], zohoBaseCents: bigint): TaxPlan {
  const used = new Set<string>();
  const lineTaxes: QuoteTax[] = [];
  const inAdjustment: string[] = [];
  const matched: string[] = [];
  const base = toCents(result.subtotal ?? 0) + toCents(result.discount ?? 0);
  const bases = [base, base + toCents(result.markup ?? 0)];
  for (const tax of result.taxes ?? []) {
    const cents = toCents(tax.total);
    const free = orgTaxes.filter((o) => !used.has(o.id));
    const byName = free.find((o) => sameName(o.name, tax.name));
    const byRate = byName ? undefined : free.find((o) => bases.some((b) => b > 0n && absolute(taxOf(b, parseDecimal(o.percentage)) - cents) <= 1n));
    const found = byName ?? byRate;
    if (!found) {
      inAdjustment.push(`${tax.name} ${centsText(cents)}`);
      continue;
    }
    used.add(found.id);
    lineTaxes.push({ id: found.id, name: found.name, percentage: parseDecimal(found.percentage) });
    matched.push(byName ? `${tax.name} by name (${found.percentage} %)` : `${tax.name} by its rate as ${found.name} ${found.percentage} %`);
  }
  const taxCents = lineTaxes.reduce((sum, t) => sum + taxOf(zohoBaseCents, t.percentage), 0n);
  return { lineTaxes, taxCents, inAdjustment, matched };
}

function absolute(value: bigint): bigint {
  return value < 0n ? -value : value;
}
