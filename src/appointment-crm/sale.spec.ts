import type { LineItemsResult } from '../service-api/service-api.types.js';
import { paymentAmountText } from '../domain/service-events.js';
import { paymentNote, saleFromLineItems } from './sale.js';

describe(saleFromLineItems.name, () => {
  const lineItems: LineItemsResult = {
    line_items: [
      { name: 'Fence', quantity: 10, price: 25, cost: 15, total: 250, sku: 'F-1', unit: 'ft', product_id: '36029621652695017', price_part_items: [] },
      { name: 'Gate', quantity: 2, price: 100, cost: 60, total: 200, sku: 'G-1', unit: 'ea', product_id: '36029621652695018' },
      { name: 'Custom labor', quantity: 1, total: 150, cost: null },
    ],
    subtotal: 600,
    discount: -50,
    discount_description: 'Spring promotion',
    markup: 30,
    markup_description: 'Rush fee',
    taxes: [{ name: 'Sales tax', total: 46.4 }],
    total: 626.4,
    drawing_version_id: '36029621652695099',
  };

  it('carries every figure over and pairs product ids with their external products, exactly', async () => {
    const asked: string[] = [];
    const sale = await saleFromLineItems(lineItems, '36029621652695050', async (productId) => {
      asked.push(productId);
      return productId === '36029621652695017' ? '90071992547409931234' : null;
    });
    expect(asked).toEqual(['36029621652695017', '36029621652695018']);
    expect(sale).toEqual({
      items: [
        {
          external_product_id: '90071992547409931234',
          product_id: '36029621652695017',
          name: 'Fence',
          sku: 'F-1',
          unit: 'ft',
          quantity: 10,
          price: 25,
          cost: 15,
          total: 250,
        },
        { external_product_id: null, product_id: '36029621652695018', name: 'Gate', sku: 'G-1', unit: 'ea', quantity: 2, price: 100, cost: 60, total: 200 },
        { external_product_id: null, product_id: null, name: 'Custom labor', sku: null, unit: null, quantity: 1, price: null, cost: null, total: 150 },
      ],
      subtotal: 600,
      discount: -50,
      discount_description: 'Spring promotion',
      markup: 30,
      markup_description: 'Rush fee',
      taxes: [{ name: 'Sales tax', total: 46.4 }],
      total: 626.4,
      drawing_id: '36029621652695050',
      drawing_version_id: '36029621652695099',
    });
  });
});

describe(paymentNote.name, () => {
  it('names amount with two decimals, channel, method and date', () => {
    expect(
      paymentNote({ proposal_id: '7', paid_amount: 120.5, pay_channel: 'service_payment', payment_method: 'ACH', paid_time: '2025-03-04T10:00:00Z' }),
    ).toBe('Payment received: 120.50; channel: service_payment; method: ACH; date: 2025-03-04T10:00:00Z; proposal 7');
    expect(paymentAmountText(3)).toBe('3.00');
  });
});
