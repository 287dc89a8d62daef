import { stringifyExactJson } from '../../http/exact-json.js';
import type { LineItemsResult } from '../../service-api/service-api.types.js';
import { centsText, jsonCents, jsonDecimal, parseDecimal, timesQuantity, toCents } from './money.js';
import { quoteFromLineItems, type QuoteDraft } from './quote-lines.js';

function result(partial: Partial<LineItemsResult>): LineItemsResult {
  return {
    line_items: [],
    subtotal: 0,
    discount: 0,
    discount_description: '',
    markup: 0,
    markup_description: '',
    taxes: [],
    total: 0,
    drawing_version_id: 'v1',
    ...partial,
  };
}

/** What Zoho computes from the rows and the Quote's fields, in cents. */
function zohoGrandTotal(draft: QuoteDraft): bigint {
  const rows = draft.lines.reduce((sum, l) => sum + timesQuantity(l.listPriceCents, l.quantity) - l.discountCents, 0n);
  return rows - draft.discountCents + draft.taxCents + draft.adjustmentCents;
}

describe('money', () => {
  it('reads amounts into cents without binary fractions, rounding half away from zero at the cent', () => {
    expect(toCents(0.1 + 0.2)).toBe(30n);
    expect(toCents(12.345)).toBe(1235n);
    expect(toCents(-12.345)).toBe(-1235n);
    expect(toCents('123456789012345678.91')).toBe(12345678901234567891n);
    expect(toCents(1e21)).toBe(100000000000000000000000n);
    expect(toCents('1.5e2')).toBe(15000n);
    expect(() => toCents('12,50')).toThrow(TypeError);
    expect(() => toCents(Number.NaN)).toThrow(TypeError);
  });

  it('refuses an amount whose exponent reaches beyond 100 digits, at once, without building it', () => {
    for (const text of ['1e200000', '-1e101', '1e-101', '5e-324', '1e100000000']) expect(() => toCents(text)).toThrow(TypeError);
    expect(toCents(`${'9'.repeat(100)}.99`)).toBe(BigInt(`${'9'.repeat(100)}99`));
  });

  it('writes cents and quantities as exact JSON numbers', () => {
    expect(centsText(-5n)).toBe('-0.05');
    expect(stringifyExactJson({ a: jsonCents(12345678901234567891n), q: jsonDecimal(parseDecimal(2.5)) })).toBe('{"a":123456789012345678.91,"q":2.5}');
  });
});

describe('quoteFromLineItems', () => {
  const product = () => 'p1';

  it('keeps each row at the service item total and the grand total at the service total on awkward amounts', () => {
    const draft = quoteFromLineItems(
      result({
        line_items: [
          { name: 'a', quantity: 3, price: 0.1, total: 0.3 },
          { name: 'b', quantity: 1, price: 0.2, total: 0.2 },
          { name: 'third off', quantity: 3, price: 10, total: 20 },
        ],
        subtotal: 20.5,
        discount: -6.83, // a third of 20.5, rounded
        markup: 1.01,
        taxes: [
          { name: 'state', total: 1.0 / 3 },
          { name: 'city', total: 0.1 + 0.2 },
        ],
        total: 20.5 - 6.83 + 1.01 + 0.33 + 0.3,
      }),
      product,
    );
    expect(draft.lines.map((l) => [centsText(l.listPriceCents), centsText(l.discountCents), centsText(l.totalCents)])).toEqual([
      ['0.10', '0.00', '0.30'],
      ['0.20', '0.00', '0.20'],
      ['10.00', '10.00', '20.00'],
    ]);
    expect(centsText(draft.subTotalCents)).toBe('20.50');
    expect(centsText(draft.discountCents)).toBe('6.83');
    // An org with no taxes: Zoho computes none, and the service's taxes go into the adjustment with the markup.
    expect(centsText(draft.taxCents)).toBe('0.00');
    expect(draft.taxesInAdjustment).toEqual(['state 0.33', 'city 0.30']);
    expect(centsText(draft.adjustmentCents)).toBe('1.64');
    expect(zohoGrandTotal(draft)).toBe(toCents(20.5 - 6.83 + 1.01 + 0.33 + 0.3));
    expect(draft.grandTotalCents).toBe(zohoGrandTotal(draft));
  });

  it("sends the service's taxes as the org's: by name, else by the rate their totals imply; Zoho's tax computed, the rest in the adjustment", () => {
    const orgTaxes = [
      { id: '1', name: 'VAT', percentage: '20' },
      { id: '2', name: 'Sales Tax', percentage: '8.25' },
      { id: '3', name: 'Unused', percentage: '3' },
    ];
    const draft = quoteFromLineItems(
      result({
        line_items: [{ name: 'panel', quantity: 3, price: 33.33, total: 99.99 }],
        subtotal: 99.99,
        discount: -9.99,
        taxes: [
          { name: ' vat ', total: 18 }, // 20 % of 90.00, by name whatever the case
          { name: 'State tax', total: 7.43 }, // 8.25 % of 90.00 = 7.425: the rate, within a cent
          { name: 'City levy', total: 1.23 }, // no org tax has it
        ],
        total: 90 + 18 + 7.43 + 1.23,
      }),
      product,
      orgTaxes,
    );
    expect(draft.lineTaxes.map((t) => [t.id, t.name])).toEqual([
      ['1', 'VAT'],
      ['2', 'Sales Tax'],
    ]);
    expect(draft.taxesMatched).toEqual([' vat  by name (20 %)', 'State tax by its rate as Sales Tax 8.25 %']);
    expect(draft.taxesInAdjustment).toEqual(['City levy 1.23']);
    // Zoho: 18.00 + 7.43 (7.425 rounded half up) on Sub_Total − Discount; the levy in the adjustment.
    expect(centsText(draft.taxCents)).toBe('25.43');
    expect(centsText(draft.adjustmentCents)).toBe('1.23');
    expect(draft.grandTotalCents).toBe(toCents(90 + 18 + 7.43 + 1.23));
  });

  it('spreads a custom price item over its quantity, rounding up and discounting the rest', () => {
    const draft = quoteFromLineItems(result({ line_items: [{ name: 'labour', quantity: 3, total: 100 }], subtotal: 100, total: 100 }), product);
    expect(draft.lines[0]).toMatchObject({ listPriceCents: 3334n, discountCents: 2n, totalCents: 10000n });
    expect(zohoGrandTotal(draft)).toBe(10000n);
  });

  it('raises the list price when the item total is above price × quantity (a markup on the row)', () => {
    const draft = quoteFromLineItems(result({ line_items: [{ name: 'x', quantity: 2.5, price: 10, total: 26.01 }], total: 26.01 }), product);
    expect(draft.lines[0]).toMatchObject({ listPriceCents: 1041n, discountCents: 2n });
    expect(timesQuantity(draft.lines[0].listPriceCents, draft.lines[0].quantity) - draft.lines[0].discountCents).toBe(2601n);
  });

  it('holds large totals exactly', () => {
    const big = '98765432109876543.21';
    const draft = quoteFromLineItems(result({ line_items: [{ name: 'big', quantity: 1, price: big, total: big } as never], total: big } as never), product);
    expect(centsText(draft.grandTotalCents)).toBe(big);
    expect(centsText(draft.lines[0].listPriceCents)).toBe(big);
  });

  it('leaves out items without a product (the total then lacks them) and folds rows Zoho cannot hold into the adjustment', () => {
    const draft = quoteFromLineItems(
      result({
        line_items: [
          { name: 'known', quantity: 1, price: 10, total: 10, sku: 'K' },
          { name: 'unknown', quantity: 1, price: 5, total: 5, sku: 'U' },
          { name: 'credit', quantity: 1, total: -2 },
        ],
        total: 13,
      }),
      (item) => (item.sku === 'K' ? 'p1' : item.sku === 'U' ? null : 'p2'),
    );
    expect(draft.leftOut).toEqual(['unknown']);
    expect(draft.folded).toEqual(['credit']);
    expect(centsText(draft.adjustmentCents)).toBe('-2.00');
    expect(zohoGrandTotal(draft)).toBe(800n);
  });
});
