import { events, WebhookSender } from '../../sim/service/index.js';
import { mapAppointment, settled } from '../support/appointment-crm.js';
import { mapRecord } from '../support/zoho-records.js';
import { EVENTS_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/*
 * GET /api/funnel (docs/operations.md, "The funnel"): its counts and amounts against a history written straight into
 * the tables (entries inside and outside the window, of both CRMs), then against approvals that went through the
 * daemon for real (the appointment CRM's sale, Zoho's Deal), so the payloads the funnel reads are the ones recorded.
 */
describe('the funnel', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, appointmentCrm: true, recordCrm: true });
  });
  afterAll(() => h?.close());

  const funnel = async (query: string): Promise<Json> => {
    const res = await h.admin(`/api/funnel${query}`);
    expect(res.status).toBe(200);
    return res.json();
  };
  const stepsOf = (answer: Json, crm: string) =>
    Object.fromEntries(answer.crms.find((c: Json) => c.crm === crm).steps.map((s: Json) => [s.step, { count: s.count, amount: s.amount }]));

  /** A sync log entry of the past, finished; `ago` in hours. */
  async function entry(crm: string, kind: string, status: string, ago: number, payload: object = {}, dedupeKey: string | null = null): Promise<void> {
    await h.database.query(
      `INSERT INTO sync_log (kind, trigger, crm, target, status, payload, dedupe_key, created_at, updated_at, started_at)
       VALUES ($1, 'webhook', $2, 'T', $3, $4, $5, now() - make_interval(hours => $6), now() - make_interval(hours => $6), now())`,
      [kind, crm, status, JSON.stringify(payload), dedupeKey, ago],
    );
  }

  it('counts a seeded history per CRM and step, with the approved and written amounts, inside the window only', async () => {
    await h.database.query(
      `INSERT INTO automation_read_hour (crm, hour, records_read, qualifying) VALUES
         ('appointment', date_trunc('hour', now()) - interval '2 hours', 40, 6), ('appointment', date_trunc('hour', now()) - interval '3 days', 100, 50),
         ('record', date_trunc('hour', now()), 25, 4)`,
    );
    // The appointment CRM: 3 creations (one failed), 2 drawing pushes, an export, two approvals (one sold).
    for (const status of ['succeeded', 'succeeded', 'failed']) await entry('appointment', 'create_project', status, 1);
    await entry('appointment', 'create_project', 'succeeded', 30); // before the 24h window
    await entry('appointment', 'push_drawings', 'succeeded', 2);
    await entry('appointment', 'push_drawings', 'succeeded', 3);
    await entry('appointment', 'push_proposal_pdf', 'succeeded', 2, { drawing_id: '1' });
    await entry(
      'appointment',
      'push_proposal_pdf',
      'succeeded',
      1,
      { pdf_url: 'https://x/p.pdf', proposal_id: '71', amount: '1200.50' },
      'appointment:approved:71',
    );
    await entry('appointment', 'push_line_items', 'succeeded', 1, { drawing_id: '1', amount: '1200.50' });
    await entry('appointment', 'set_status', 'succeeded', 1, { status: 'Sold', amount: '1200.50' });
    await entry('appointment', 'push_line_items', 'failed', 1, { drawing_id: '2', amount: '99.99' }, 'appointment:approved:72');
    await entry(
      'appointment',
      'push_proposal_pdf',
      'succeeded',
      50,
      { pdf_url: 'https://x/o.pdf', proposal_id: '70', amount: '5.00' },
      'appointment:approved:70',
    );
    // Zoho: an export, a proposal approved twice (a change order's later total wins), another approved on a Quote.
    await entry('record', 'attach_pdf', 'succeeded', 2, { module: 'Deals', recordId: '9', drawingId: '1' });
    await entry(
      'record',
      'update_deal',
      'succeeded',
      2,
      { module: 'Deals', recordId: '9', proposalId: '81', status: 'APPROVED', amount: '1000.00' },
      'record:deal:81:APPROVED:1000.00',
    );
    await entry(
      'record',
      'update_deal',
      'succeeded',
      1,
      { module: 'Deals', recordId: '9', proposalId: '81', status: 'APPROVED', amount: '1100.00' },
      'record:deal:81:APPROVED:1100.00',
    );
    await entry('record', 'attach_pdf', 'succeeded', 1, { module: 'Quotes', recordId: '8', pdfUrl: 'https://x/q.pdf', proposalId: '82' }, 'record:approved:82');
    await entry('record', 'push_quote', 'succeeded', 1, { module: 'Deals', recordId: '9', drawingId: '1', proposalId: '81' });
    await entry('record', 'update_deal', 'running', 0, { module: 'Deals', recordId: '9', proposalId: '83', status: 'LOST' });

    const day = await funnel('?window=24h');
    expect(day.window).toBe('24h');
    expect(stepsOf(day, 'appointment')).toEqual({
      read: { count: 40, amount: null },
      qualifying: { count: 6, amount: null },
      projects_created: { count: 2, amount: null },
      mapped: { count: 0, amount: null },
      drawings_pushed: { count: 2, amount: null },
      proposals_exported: { count: 1, amount: null },
      approved: { count: 2, amount: '1300.49' },
      written: { count: 1, amount: '1200.50' },
      // Each record's latest approval without an open revenue drift: 72 (its push failed; no check has run yet).
      in_agreement: { count: 1, amount: '99.99' },
      failed: { count: 2, amount: null },
      waiting: { count: 0, amount: null },
    });
    expect(stepsOf(day, 'record')).toEqual({
      read: { count: 25, amount: null },
      qualifying: { count: 4, amount: null },
      projects_created: { count: 0, amount: null },
      mapped: { count: 0, amount: null },
      proposals_exported: { count: 1, amount: null },
      approved: { count: 2, amount: '1100.00' },
      written: { count: 2, amount: '2100.00' },
      in_agreement: { count: 1, amount: '1100.00' },
      failed: { count: 0, amount: null },
      waiting: { count: 1, amount: null },
    });
    const written = day.crms.find((c: Json) => c.crm === 'record').steps.find((s: Json) => s.step === 'written');
    expect(written.parts.map((p: Json) => [p.label, p.count])).toEqual([
      ['Deal amount written', 2],
      ['Quote written', 1],
    ]);
    // Each number links to the items behind it: the sync log's own filters.
    const link = new URL(written.parts[1].link, h.url);
    expect(Object.fromEntries(link.searchParams)).toEqual({ crm: 'record', kind: 'push_quote', status: 'succeeded', since: day.since });
    const behind = (await (await h.admin(link.pathname + link.search)).json()) as Json;
    expect(behind.items).toHaveLength(1);

    // A week: the older entries and reads join; one CRM asked for alone.
    const week = await funnel('?window=7d&crm=appointment');
    expect(week.crms.map((c: Json) => c.crm)).toEqual(['appointment']);
    expect(stepsOf(week, 'appointment')).toMatchObject({
      read: { count: 140 },
      qualifying: { count: 56 },
      projects_created: { count: 3 },
      approved: { count: 3, amount: '1305.49' },
    });
    expect(week.approved_per_day).toHaveLength(8);
    const total = week.approved_per_day.reduce((sum: number, d: Json) => sum + d.approved, 0);
    expect(total).toBe(3);
    expect(week.approved_per_day.at(-1).day).toBe(new Date().toISOString().slice(0, 10));
    expect((await h.admin('/api/funnel?window=1y')).status).toBe(400);
  });

  it('counts approvals that went through the daemon: the appointment’s sale and the Deal’s amount, with their totals', async () => {
    await h.database.query(`DELETE FROM sync_log`);
    const sender = new WebhookSender();
    const deliver = async (body: object) => expect((await sender.deliverOnce(`${h.url}/webhooks/events`, body, { secret: EVENTS_SECRET })).status).toBe(200);

    const kitchen = h.service.addProject();
    const kitchenDrawing = h.service.addDrawing(kitchen.id);
    h.appointmentCrm!.addAppointment('APT-77');
    await mapAppointment(h, kitchen.id, 'APT-77');
    const sold = h.service.addProposal({ project_id: kitchen.id, status: 'APPROVED', total: 4250.25, approved_option: { drawing_id: kitchenDrawing.id } });
    await deliver(events.proposalStatusChanged(sold));
    await settled(h, kitchen.id, ['push_line_items', 'set_status']);

    const roof = h.service.addProject();
    const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'Roof deal', Stage: 'Qualification' });
    await mapRecord(h, roof.id, deal, 'Deals');
    await deliver(events.proposalStatusChanged(h.service.addProposal({ project_id: roof.id, status: 'APPROVED', total: 999.5 })));
    await waitFor(
      async () => (await h.database.query<Json[]>(`SELECT 1 FROM sync_log WHERE kind = 'update_deal' AND status = 'succeeded'`)).length === 1,
      20_000,
      'the Deal written',
    );

    const answer = await funnel('?window=24h');
    expect(stepsOf(answer, 'appointment')).toMatchObject({ approved: { count: 1, amount: '4250.25' }, written: { count: 1, amount: '4250.25' } });
    expect(stepsOf(answer, 'record')).toMatchObject({ approved: { count: 1, amount: '999.50' }, written: { count: 1, amount: '999.50' } });
    expect(answer.approved_per_day.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), approved: 2, amount: '5249.75' });
  });
});
