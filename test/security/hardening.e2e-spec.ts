import { signWebhook } from '../../sim/service/index.js';
import { APPOINTMENT_PROMPT_SECRET, EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, type Harness } from '../support/harness.js';

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

  const post = (body: string, path = '/webhooks/events', secret = EVENTS_SECRET) =>
    fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signWebhook(secret, body) },
      body,
    });
  /** How a delivery was kept: a refused one (400) is stored `failed` for the admin (nothing lost), never routed. */
  const storedAs = async (body: string) =>
    (await h.database.query<Array<{ status: string }>>(`SELECT status FROM webhook_inbox WHERE body = $1`, [Buffer.from(body)])).map((r) => r.status);
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

  it('refuses an amount whose exponent puts it beyond any sum (1e200000, 1e100000000) with 400, kept as failed and never routed, and the funnel still answers', async () => {
    for (const amount of ['"1e200000"', '"1e100000000"', '1.0000000000000000e200000', '-1.000000000000000e41', '1e300', '"1e-41"']) {
      const payment = `{"event":"proposal.payment.received","data":{"proposal_id":"36029621652695106","drawing_id":"36029621652695102","paid_amount":${amount},"pay_channel":"mark_as_paid","paid_date":"2026-11-25","payment_method":"cash"}}`;
      const res = await post(payment);
      expect([amount, res.status]).toEqual([amount, 400]);
      expect(((await res.json()) as { error: string }).error).toContain('data.paid_amount must be a number of at most 40 digits before and after the point');
      expect(await storedAs(payment)).toEqual(['failed']);
    }
    const approved = JSON.stringify({
      event: 'proposal.approved',
      data: {
        proposal_id: '36029621652695107',
        project_id: '36029621652695101',
        name: 'Q',
        sales_representative: 's',
        contact_email: 'c',
        customer_name: 'n',
        customer_email: 'e',
        approved_option: { id: 'o', name: 'o', drawing_id: '36029621652695102', drawing_version_id: 'v', total: '9e99999' },
      },
    });
    expect((await post(approved)).status).toBe(400);
    expect(await storedAs(approved)).toEqual(['failed']);
    expect((await h.admin('/api/funnel')).status).toBe(200);
  });

  it('still takes a large amount a double cannot hold, to the cent', async () => {
    const payment = `{"event":"proposal.payment.received","data":{"proposal_id":"36029621652695108","drawing_id":"36029621652695102","paid_amount":1234567890123456789012345678901234567890.25,"pay_channel":"mark_as_paid","paid_date":"2026-11-25","payment_method":"cash"}}`;
    expect((await post(payment)).status).toBe(200);
  });

  it('refuses the ids . and .. of another system (they would be dot-segments of a CRM request path), in prompts and mappings', async () => {
    for (const id of ['.', '..']) {
      const appointmentPrompt = JSON.stringify({ project_id: '36029621652695101', drawing_id: '36029621652695102', appointment_id: id, yes_no: true });
      const res = await post(appointmentPrompt, '/webhooks/appointment-crm/export-prompt', APPOINTMENT_PROMPT_SECRET);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('appointment_id must be an id');
      expect(await storedAs(appointmentPrompt)).toEqual(['failed']);
      const recordPrompt = JSON.stringify({ drawing_id: '36029621652695102', record_crm_module: 'Deals', record_crm_record_id: id, yes_no: true });
      expect((await post(recordPrompt, '/webhooks/record-crm/export-prompt', RECORD_PROMPT_SECRET)).status).toBe(400);

      const mapping = await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: id, project_id: '36029621652695101' } });
      expect(mapping.status).toBe(400);
      expect(JSON.stringify(await mapping.json())).toContain('appointment_id must not be . or ..');
    }
    expect(await h.database.query(`SELECT id FROM mapping`)).toEqual([]);
  });

  it('judges the route the router matched, not the raw URL: /%61pi/… needs a token, /%77ebhooks/… gets its body as bytes', async () => {
    expect((await fetch(`${h.url}/%61pi/funnel`)).status).toBe(401);
    expect((await fetch(`${h.url}/%61pi/sync-logs`)).status).toBe(401);
    const body = JSON.stringify({ event: 'project.created', data: { id: '36029621652695109', name: 'P', tags: [] } });
    const res = await post(body, '/%77ebhooks/events');
    expect(res.status).toBe(200);
    const stored = await h.database.query<Array<{ body: Buffer }>>(`SELECT body FROM webhook_inbox WHERE body = $1`, [Buffer.from(body)]);
    expect(stored).toHaveLength(1);
  });
});
