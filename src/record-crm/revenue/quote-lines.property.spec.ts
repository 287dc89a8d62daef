import fc from 'fast-check';
import type { LineItem, LineItemsResult } from '../../service-api/service-api.types.js';
import { centsText, timesQuantity, toCents } from './money.js';
import { quoteFromLineItems } from './quote-lines.js';

const runs = { numRuns: 200, interruptAfterTimeLimit: 4000 };

/** Amounts as the service sends them: doubles of any cents (0.1 + 0.2 and friends), or exact text beyond a double. */
const cents = fc.bigInt({ min: 0n, max: 10n ** 17n });
const amount = fc.oneof(
  cents.map((c) => Number(c) / 100),
  fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 })).map(([a, b]) => a / 100 + b / 100),
  cents.map((c) => centsText(c)),
);
const quantity = fc.oneof(
  fc.integer({ min: 1, max: 1000 }),
  fc.integer({ min: 1, max: 100_000 }).map((n) => n / 1000),
);

const item = fc.record({
  name: fc.string({ maxLength: 8 }),
  quantity,
  total: amount,
  price: fc.option(amount, { nil: undefined }),
  sku: fc.constantFrom('A', 'B', undefined),
}) as unknown as fc.Arbitrary<LineItem>;

const lineItems: fc.Arbitrary<LineItemsResult> = fc.record({
  line_items: fc.array(item, { maxLength: 8 }),
  subtotal: amount,
  discount: amount.map((a) => (typeof a === 'number' ? -a : `-${a}`)),
  discount_description: fc.constant(''),
  markup: amount,
  markup_description: fc.constant(''),
  taxes: fc.array(fc.record({ name: fc.constant('tax'), total: amount }), { maxLength: 3 }),
  total: amount,
  drawing_version_id: fc.constant('v'),
}) as fc.Arbitrary<LineItemsResult>;

describe('quoteFromLineItems, on any line items', () => {
  it("Zoho's figures from the rows are the service's: each row's net is its item total, the grand total the service total less what is left out", () => {
    fc.assert(
      // An org with a tax of that name (sent as $line_tax, Zoho computing it) or none (the taxes in the adjustment).
      fc.property(lineItems, fc.constantFrom([], [{ id: '1', name: 'tax', percentage: '7.25' }]), (result, orgTaxes) => {
        const draft = quoteFromLineItems(result, (i) => (i.sku === 'B' ? null : 'p'), orgTaxes);
        let rows = 0n;
        for (const line of draft.lines) {
          expect(line.discountCents >= 0n).toBe(true);
          const net = timesQuantity(line.listPriceCents, line.quantity) - line.discountCents;
          expect(net).toBe(line.totalCents);
          rows += net;
        }
        const leftOut = (result.line_items ?? []).filter((i) => i.sku === 'B').reduce((sum, i) => sum + toCents(i.total), 0n);
        expect(rows - draft.discountCents + draft.taxCents + draft.adjustmentCents).toBe(toCents(result.total) - leftOut);
      }),
      runs,
    );
  });

  it('reads any decimal text into cents as exact arithmetic does, and refuses what is not a number with a TypeError', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.integer({ min: 0, max: 6 }), (units, scale) => {
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const text = `${units < 0n ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`;
        let expected: bigint;
        if (scale <= 2) expected = units * 10n ** BigInt(2 - scale);
        else {
          const unit = 10n ** BigInt(scale - 2);
          const magnitude = units < 0n ? -units : units;
          const rounded = magnitude / unit + (2n * (magnitude % unit) >= unit ? 1n : 0n);
          expected = units < 0n ? -rounded : rounded;
        }
        expect(toCents(text)).toBe(expected);
      }),
      runs,
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        try {
          toCents(text);
        } catch (err) {
          expect(err).toBeInstanceOf(TypeError);
        }
      }),
      runs,
    );
  });
});
