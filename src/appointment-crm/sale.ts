import type { LineItemsResult } from '../service-api/service-api.types.js';
import type { Sale } from './appointment-crm.js';
import { paymentAmountText } from '../domain/service-events.js';

/**
 * D2's line items as the appointment's sale: every price, discount, markup, tax and total carried over as given,
 * each service product id paired with the external product connected to it (null when none is, or for custom
 * price items, which have no product).
 */
export async function saleFromLineItems(
  result: LineItemsResult,
  drawingId: string,
  externalProductOf: (productId: string) => Promise<string | null>,
): Promise<Sale> {
  const items = [];
  for (const item of result.line_items ?? []) {
    const productId = item.product_id ?? null;
    items.push({
      external_product_id: productId === null ? null : await externalProductOf(productId),
      product_id: productId,
      name: item.name,
      sku: item.sku ?? null,
      unit: item.unit ?? null,
      quantity: item.quantity,
      price: item.price ?? null,
      cost: item.cost ?? null,
      total: item.total,
    });
  }
  return {
    items,
    subtotal: result.subtotal,
    discount: result.discount,
    discount_description: result.discount_description ?? '',
    markup: result.markup,
    markup_description: result.markup_description ?? '',
    taxes: (result.taxes ?? []).map((tax) => ({ name: tax.name, total: tax.total })),
    total: result.total,
    drawing_id: drawingId,
    drawing_version_id: result.drawing_version_id,
  };
}

/** The text of the note a payment leaves on the appointment. */
export function paymentNote(payment: {
  proposal_id: string;
  paid_amount: number | string;
  pay_channel: string;
  payment_method: string;
  paid_time?: string;
  paid_date?: string;
}): string {
  const date = payment.paid_time ?? payment.paid_date ?? 'date not given';
  return (
    `Payment received: ${paymentAmountText(payment.paid_amount)}; channel: ${payment.pay_channel}; ` +
    `method: ${payment.payment_method}; date: ${date}; proposal ${payment.proposal_id}`
  );
}
