import { paymentAmountText, paymentFact, type PaymentReceivedData } from './service-events.js';

describe(paymentFact.name, () => {
  const webhook: PaymentReceivedData = {
    proposal_id: '36029621652695017',
    drawing_id: '1',
    pay_channel: 'mark_as_paid',
    paid_date: '2026-11-20',
    paid_amount: 120.5,
    payment_method: 'Check',
  };

  it('is the same for a webhook payload and the same payment read from R5', () => {
    const fromR5 = { ...webhook, status: 'succeeded', paid_amount: 120.5 };
    expect(paymentFact(webhook)).toBe('36029621652695017:mark_as_paid:2026-11-20:120.50:Check');
    expect(paymentFact(fromR5)).toBe(paymentFact(webhook));
  });

  it('tells payments apart by time, amount, channel and method', () => {
    const online: PaymentReceivedData = { ...webhook, pay_channel: 'service_payment', paid_date: undefined, paid_time: '2026-11-20T10:00:00Z' };
    const facts = new Set([webhook, { ...webhook, paid_amount: 120.51 }, { ...webhook, payment_method: 'Cash' }, online].map(paymentFact));
    expect(facts.size).toBe(4);
  });

  it('writes amounts with two decimals, and an amount given as digits as it is', () => {
    expect(paymentAmountText(3)).toBe('3.00');
    expect(paymentAmountText('12345678901234567.89')).toBe('12345678901234567.89');
  });
});
