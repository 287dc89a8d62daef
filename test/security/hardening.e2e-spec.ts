import { signWebhook } from '../../sim/service/index.js';
import { EVENTS_SECRET, startHarness, type Harness } from '../support/harness.js';

/**
 * The events webhook takes what the service may send beyond its description (a new enum value, a null where no
 * action needs a value, an amount a double cannot hold), counting it, and refuses only what makes the work
 * impossible: an id of the service that is not one.
 */
describe('webhooks: a tolerant reader', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 4 });
  });
  afterAll(() => h.close());

  const post = (body: string) =>
    fetch(`${h.url}/webhooks/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signWebhook(EVENTS_SECRET, body) },
      body,
    });
  const metric = async (labels: string) => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`crm_sync_webhook_tolerated_fields_total{${labels}}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('takes a project.updated with a source value added since, and counts it', async () => {
    const body = JSON.stringify({ event: 'project.updated', data: { id: '36029621652695101', name: 'P', tags: [], source: 'partner_portal' } });
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'accepted' });
    expect(await metric('event="project.updated",field="source",kind="unknown_value"')).toBe(1);
  });

  it('takes a drawing event with pdf_url null, and an amount beyond a double exact as text', async () => {
    const drawing = { id: '36029621652695102', project_id: '36029621652695101', name: 'D', pdf_url: null, png_url: null, tags: [] };
    expect((await post(JSON.stringify({ event: 'drawing.updated', data: drawing }))).status).toBe(200);
    expect(await metric('event="drawing.updated",field="pdf_url",kind="null"')).toBe(1);

    const payment = `{"event":"proposal.payment.received","data":{"proposal_id":"36029621652695103","drawing_id":"36029621652695102","paid_amount":12345678901234567.89,"pay_channel":"mark_as_paid","paid_date":"2026-11-25","payment_method":"cash"}}`;
    expect((await post(payment)).status).toBe(200);
    expect(await metric('event="proposal.payment.received",field="paid_amount",kind="inexact_number"')).toBe(1);
  });

  it('takes a payment on a pay_channel added since, stores it as it came, and counts it', async () => {
    const payment = `{"event":"proposal.payment.received","data":{"proposal_id":"36029621652695105","drawing_id":"36029621652695102","paid_amount":10,"pay_channel":"bank_transfer","paid_time":"2026-11-25T10:00:00Z","payment_method":"ach"}}`;
    const res = await post(payment);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'accepted' });
    expect(await metric('event="proposal.payment.received",field="pay_channel",kind="unknown_value"')).toBe(1);
    const stored = await h.database.query<Array<{ body: Buffer }>>(`SELECT body FROM webhook_inbox WHERE body = $1`, [Buffer.from(payment)]);
    expect(stored).toHaveLength(1);
  });

  it('takes a proposal status added since (recorded as skipped), and refuses a proposal id that is not an id', async () => {
    const base = { project_id: '36029621652695101', name: 'Q', sales_representative: 's', contact_email: 'c', customer_name: 'n', customer_email: 'e' };
    const newStatus = JSON.stringify({ event: 'proposal.status_changed', data: { ...base, proposal_id: '36029621652695104', status: 'ARCHIVED' } });
    expect((await post(newStatus)).status).toBe(200);

    const forged = JSON.stringify({
      event: 'proposal.status_changed',
      data: { ...base, proposal_id: '1.pdf"\r\nContent-Type: text/html', status: 'APPROVED' },
    });
    const res = await post(forged);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('data.proposal_id must be an id of the service (decimal digits)');
  });

  it('answers a repeated OAuth callback parameter with 400, not 500', async () => {
    const res = await fetch(`${h.url}/admin/connections/record-crm/callback?state=a&state=b&code=c`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('state must be given once');
  });
});
