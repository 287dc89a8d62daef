import { RECORD_CRM_DEFAULTS } from '../../src/crm-settings/automation-settings.js';
import { events } from '../../sim/service/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntries } from '../support/tables.js';
import { FINISHED, checkPass, driftsOf, finished, lineItemsOf, passOutcome, type Drift } from '../support/revenue-drift.js';

/** Heals (202, and the push it records finished, succeeded) or accepts (200, accepted) a drift through the API. */
async function decide(h: Harness, drift: Drift, decision: 'heal' | 'accept') {
  const res = await h.admin(`/api/revenue/drifts/${drift.id}/${decision}`, { method: 'POST' });
  if (decision === 'accept') {
    expect(`${res.status} ${await res.text()}`).toMatch(/^200 .*"state":"accepted"/);
    return null;
  }
  expect(res.status).toBe(202);
  const entry = await finished(h, ((await res.json()) as { id: string }).id);
  expect(`${entry.status} ${entry.error}`).toMatch(/^succeeded /);
  return entry;
}

const statesOf = async (h: Harness, projectId: string) => Object.fromEntries((await driftsOf(h, { project_id: projectId })).map((d) => [d.kind, d.state]));

describe('revenue check: drifts found, shown side by side, healed or accepted', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, appointmentCrm: true, recordCrm: true });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;
  const zoho = () => h.zoho!;
  let seq = 0;

  /** An approved proposal pushed to a mapped appointment: signed PDF, sale and Sold, all written. */
  async function approvedAppointment() {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `90071992547409931${seq++}`;
    crm().addAppointment(appointmentId, { web_url: crm().webUrlOf(appointmentId) });
    await mapAppointment(h, project.id, appointmentId);
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total: 4321.5 });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    expect(crm().get(appointmentId)).toMatchObject({ status: 'Sold' });
    return { project, drawing, appointmentId, proposal };
  }

  /** An approved proposal pushed to a mapped Deal: Amount, Stage Closed Won, Closing_Date. */
  async function approvedDeal(total = 12345.6) {
    const project = h.service.addProject();
    h.service.addDrawing(project.id);
    const dealId = zoho().addRecord('Deals', undefined, { Deal_Name: `Deal of ${project.name}`, Stage: 'Qualification' });
    await mapRecord(h, project.id, dealId, 'Deals');
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    await waitFor(async () => {
      const [entry] = await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'update_deal' });
      return entry && FINISHED.includes(entry.status) ? entry : null;
    }, 20_000);
    expect(zoho().revenue.fieldsOf('Deals', dealId)).toMatchObject({ Amount: total, Stage: 'Closed Won' });
    return { project, dealId, proposal, target: `Deals/${dealId}` };
  }

  it('a pass with nothing changed finds nothing and asks each CRM once per source', async () => {
    const a = await approvedAppointment();
    const d = await approvedDeal();
    await checkPass(h, 'full');
    expect(await driftsOf(h, { project_id: a.project.id })).toEqual([]);
    expect(await driftsOf(h, { project_id: d.project.id })).toEqual([]);
    await checkPass(h, 'changes'); // moves every source's position past the writes above
    const before = { crm: crm().requests.length, zoho: zoho().api.requests.length };
    const entry = await checkPass(h, 'changes');
    expect(entry.status).toBe('succeeded');
    expect(crm().requests.length - before.crm).toBeLessThanOrEqual(2);
    // Deals and Quotes, each a 304 (If-Modified-Since).
    expect(
      zoho()
        .api.requests.slice(before.zoho)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(['GET /crm/v8/Deals', 'GET /crm/v8/Quotes']);
  });

  it("the appointment CRM: a person's edits are drifts with the three values and who made them; healed or accepted", async () => {
    const a = await approvedAppointment();
    await checkPass(h, 'changes');
    crm().personEdits(a.appointmentId, { status: 'Cancelled', removeFiles: 'proposal' });
    crm().personEdits(a.appointmentId, { sale: null }, 'Pat Manager');
    const entry = await checkPass(h, 'changes');
    expect(entry.detail).toMatch(/new drift/);

    const drifts = await driftsOf(h, { project_id: a.project.id, crm: 'appointment' });
    const byKind = Object.fromEntries(drifts.map((d) => [d.kind, d]));
    expect(Object.keys(byKind).sort()).toEqual(['file_missing', 'sale_missing', 'status']);
    const written = await syncLogEntries(h, { target: a.appointmentId, kind: 'set_status' });
    expect(byKind.status).toMatchObject({
      state: 'open',
      target: a.appointmentId,
      service_value: 'Sold',
      written_value: 'Sold',
      written_entry_id: written[0].id,
      crm_value: 'Cancelled',
      changed_by: 'Pat Manager',
      by_crm_sync: false,
      link: crm().webUrlOf(a.appointmentId),
    });
    expect(byKind.sale_missing).toMatchObject({ service_value: 'total 4321.50', written_value: 'total 4321.50', crm_value: null });
    expect(byKind.file_missing).toMatchObject({ crm_value: 'no proposal file', written_value: 'proposal file uploaded' });
    expect(Date.parse(byKind.status.changed_at!)).toBe(Date.parse(crm().get(a.appointmentId)!.updated_at));

    // Heal the status: the normal set_status, with its own sync log entry.
    const heal = await h.admin(`/api/revenue/drifts/${byKind.status.id}/heal`, { method: 'POST' });
    expect(heal.status).toBe(202);
    const { id: healId } = (await heal.json()) as { id: string };
    expect(await finished(h, healId)).toMatchObject({ kind: 'set_status', status: 'succeeded', actor: 'admin' });
    expect(crm().get(a.appointmentId)!.status).toBe('Sold');

    // Accept the missing sale: it stays accepted through later passes.
    const accept = await h.admin(`/api/revenue/drifts/${byKind.sale_missing.id}/accept`, { method: 'POST' });
    expect(accept.status).toBe(200);
    expect(await accept.json()).toMatchObject({ state: 'accepted', decided_by: 'admin' });
    await checkPass(h, 'full');
    const after = Object.fromEntries((await driftsOf(h, { project_id: a.project.id })).map((d) => [d.kind, d.state]));
    expect(after).toEqual({ status: 'healed', sale_missing: 'accepted', file_missing: 'open' });

    // Bulk heal by filter: the proposal file comes back through push_proposal_pdf's chain.
    const bulk = await h.admin('/api/revenue/drifts/heal', { method: 'POST', json: { project_id: a.project.id, kind: 'file_missing' } });
    expect(bulk.status).toBe(202);
    const { sync_log_ids } = (await bulk.json()) as { sync_log_ids: string[] };
    expect(sync_log_ids).toHaveLength(1);
    expect(await finished(h, sync_log_ids[0])).toMatchObject({ kind: 'push_proposal_pdf', status: 'succeeded' });
    await waitFor(() => crm().filesOf(a.appointmentId, 'proposal').length === 1 || null, 10_000);
    // The file's heal writes the file alone: the sale accepted as missing stays missing (no push_line_items after it).
    expect(crm().get(a.appointmentId)!.sale).toBeNull();
    expect(await syncLogEntries(h, { target: a.appointmentId, kind: 'push_line_items' })).toHaveLength(1);
  });

  it("the appointment CRM: a sale's items changed by hand are a sale_items drift; healed, then changed again and accepted", async () => {
    const a = await approvedAppointment();
    await checkPass(h, 'changes');
    const sale = crm().get(a.appointmentId)!.sale as { items: Array<Record<string, unknown>>; total: number };
    crm().personEdits(a.appointmentId, { sale: { items: sale.items.slice(1), total: sale.total - 1 } });
    await checkPass(h, 'changes');
    const [drift] = await driftsOf(h, { project_id: a.project.id, kind: 'sale_items' });
    const [written] = await syncLogEntries(h, { target: a.appointmentId, kind: 'push_line_items' });
    expect(drift).toMatchObject({ state: 'open', changed_by: 'Sam Ortiz', by_crm_sync: false, written_entry_id: written.id });
    expect(drift.written_value).toBe(drift.service_value);
    expect(drift.service_value).toContain(`${sale.items.length} item(s)`);
    expect(drift.crm_value).toContain(`${sale.items.length - 1} item(s)`);
    expect(Date.parse(drift.changed_at!)).toBe(Date.parse(crm().get(a.appointmentId)!.updated_at));

    // Healed: push_line_items writes the approved drawing's items again.
    expect(await decide(h, drift, 'heal')).toMatchObject({ kind: 'push_line_items' });
    expect((crm().get(a.appointmentId)!.sale as { items: unknown[] }).items).toHaveLength(sale.items.length);
    await checkPass(h, 'changes');
    expect(await statesOf(h, a.project.id)).toEqual({ sale_items: 'healed' });

    // Changed again by hand, and this time accepted: a later full pass leaves it accepted and the sale as the person left it.
    crm().personEdits(a.appointmentId, { sale: { total: sale.total + 10 } }, 'Pat Manager');
    await checkPass(h, 'changes');
    const [again] = await driftsOf(h, { project_id: a.project.id, kind: 'sale_items' });
    expect(again).toMatchObject({ id: drift.id, state: 'open', changed_by: 'Pat Manager', by_crm_sync: false });
    await decide(h, again, 'accept');
    await checkPass(h, 'full');
    expect(await statesOf(h, a.project.id)).toEqual({ sale_items: 'accepted' });
    expect((crm().get(a.appointmentId)!.sale as { total: number }).total).toBe(sale.total + 10);
  });

  it('the appointment CRM: the other decision for each kind: status and file accepted, a deleted sale healed', async () => {
    const a = await approvedAppointment();
    await checkPass(h, 'changes');
    crm().personEdits(a.appointmentId, { status: 'Rescheduled', removeFiles: 'proposal', sale: null }, 'Pat Manager');
    await checkPass(h, 'changes');
    const byKind = Object.fromEntries((await driftsOf(h, { project_id: a.project.id })).map((d) => [d.kind, d]));
    expect(Object.keys(byKind).sort()).toEqual(['file_missing', 'sale_missing', 'status']);
    const person = { state: 'open', changed_by: 'Pat Manager', by_crm_sync: false };
    expect(byKind.status).toMatchObject({ ...person, service_value: 'Sold', written_value: 'Sold', crm_value: 'Rescheduled' });
    expect(byKind.file_missing).toMatchObject({
      ...person,
      service_value: expect.stringMatching(/^the signed proposal \S+$/),
      written_value: 'proposal file uploaded',
      crm_value: 'no proposal file',
    });
    expect(byKind.sale_missing).toMatchObject({ ...person, service_value: 'total 4321.50', written_value: 'total 4321.50', crm_value: null });

    await decide(h, byKind.status, 'accept');
    await decide(h, byKind.file_missing, 'accept');
    expect(await decide(h, byKind.sale_missing, 'heal')).toMatchObject({ kind: 'push_line_items' });
    expect(crm().get(a.appointmentId)!.sale).toMatchObject({ items: expect.any(Array) });
    await checkPass(h, 'full');
    expect(await statesOf(h, a.project.id)).toEqual({ status: 'accepted', file_missing: 'accepted', sale_missing: 'healed' });
    expect(crm().get(a.appointmentId)!.status).toBe('Rescheduled');
    expect(crm().filesOf(a.appointmentId, 'proposal')).toHaveLength(0);
  });

  it("Zoho: a rep's Amount, Stage moved back and Closing_Date are drifts named by Modified_By; a heal writes its own field again", async () => {
    const d = await approvedDeal(2500);
    await checkPass(h, 'changes');
    const closingDate = zoho().revenue.fieldsOf('Deals', d.dealId).Closing_Date;
    zoho().revenue.editByHand('Deals', d.dealId, { Amount: 1999, Stage: 'Negotiation/Review', Closing_Date: '2020-02-02' });
    await checkPass(h, 'changes');
    const drifts = await driftsOf(h, { project_id: d.project.id, crm: 'record' });
    const byKind = Object.fromEntries(drifts.map((x) => [x.kind, x]));
    expect(Object.keys(byKind).sort()).toEqual(['amount', 'closing_date', 'stage']);
    expect(byKind.amount).toMatchObject({
      target: d.target,
      service_value: '2500.00',
      written_value: '2500.00',
      crm_value: '1999.00',
      changed_by: 'Rita Rep',
      by_crm_sync: false,
    });
    expect(byKind.stage).toMatchObject({
      service_value: 'Closed Won',
      written_value: 'Closed Won',
      crm_value: 'Negotiation/Review',
      changed_by: 'Rita Rep',
      by_crm_sync: false,
    });
    expect(byKind.closing_date).toMatchObject({
      service_value: closingDate,
      written_value: closingDate,
      crm_value: '2020-02-02',
      changed_by: 'Rita Rep',
      by_crm_sync: false,
    });

    const heal = await h.admin(`/api/revenue/drifts/${byKind.amount.id}/heal`, { method: 'POST' });
    expect(heal.status).toBe(202);
    const { id } = (await heal.json()) as { id: string };
    expect(await finished(h, id)).toMatchObject({ kind: 'update_deal', status: 'succeeded' });
    // The heal of the Amount writes the Amount alone: the Stage and Closing_Date Rita set wait for their own decision.
    expect(zoho().revenue.fieldsOf('Deals', d.dealId)).toMatchObject({ Amount: 2500, Stage: 'Negotiation/Review', Closing_Date: '2020-02-02' });
    await checkPass(h, 'changes');
    expect(await statesOf(h, d.project.id)).toEqual({ amount: 'healed', closing_date: 'open', stage: 'open' });
    // Both healed by filter: each its own update_deal.
    const bulk = await h.admin('/api/revenue/drifts/heal', { method: 'POST', json: { project_id: d.project.id } });
    expect(bulk.status).toBe(202);
    const { sync_log_ids } = (await bulk.json()) as { sync_log_ids: string[] };
    expect(sync_log_ids).toHaveLength(2);
    for (const entryId of sync_log_ids) expect(await finished(h, entryId)).toMatchObject({ kind: 'update_deal', status: 'succeeded' });
    expect(zoho().revenue.fieldsOf('Deals', d.dealId)).toMatchObject({ Amount: 2500, Stage: 'Closed Won', Closing_Date: closingDate });
    await checkPass(h, 'changes');
    expect(await statesOf(h, d.project.id)).toEqual({ amount: 'healed', closing_date: 'healed', stage: 'healed' });
  });

  it('Zoho: an accepted Amount raises nothing again until the service changes it; a Closing_Date and a Stage changed are drifts, accepted too', async () => {
    const d = await approvedDeal(800);
    await checkPass(h, 'changes');
    zoho().revenue.editByHand('Deals', d.dealId, { Amount: 750, Closing_Date: '2020-01-01' });
    await checkPass(h, 'changes');
    const [amount] = await driftsOf(h, { project_id: d.project.id, kind: 'amount' });
    const [closing] = await driftsOf(h, { project_id: d.project.id, kind: 'closing_date' });
    expect(closing).toMatchObject({ crm_value: '2020-01-01', state: 'open', changed_by: 'Rita Rep', by_crm_sync: false });
    expect(closing.service_value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(closing.written_value).toBe(closing.service_value);
    const accepted = await h.admin(`/api/revenue/drifts/${amount.id}/accept`, { method: 'POST' });
    expect(`${accepted.status} ${await accepted.text()}`).toMatch(/^200 /);
    zoho().revenue.editByHand('Deals', d.dealId, { Description: 'touched' });
    await checkPass(h, 'changes');
    expect((await driftsOf(h, { project_id: d.project.id, kind: 'amount' }))[0].state).toBe('accepted');

    await decide(h, closing, 'accept');
    // The Stage moved back later: accepted as well; a full pass leaves the three accepted and the Deal as Rita left it.
    zoho().revenue.editByHand('Deals', d.dealId, { Stage: 'Negotiation/Review' });
    await checkPass(h, 'changes');
    const [stage] = await driftsOf(h, { project_id: d.project.id, kind: 'stage' });
    expect(stage).toMatchObject({ state: 'open', service_value: 'Closed Won', crm_value: 'Negotiation/Review', changed_by: 'Rita Rep' });
    await decide(h, stage, 'accept');
    await checkPass(h, 'full');
    expect(await statesOf(h, d.project.id)).toEqual({ amount: 'accepted', closing_date: 'accepted', stage: 'accepted' });
    expect(zoho().revenue.fieldsOf('Deals', d.dealId)).toMatchObject({ Amount: 750, Closing_Date: '2020-01-01', Stage: 'Negotiation/Review' });
  });

  it('a pass counts the calls each CRM received; a small REVENUE_CHECK_CALL_BUDGET stops it and the next pass goes on', async () => {
    for (let i = 0; i < 3; i++) await approvedAppointment();
    await approvedDeal();
    const received = () => ({ crm: crm().requests.length, zoho: zoho().api.requests.length });
    let before = received();
    const whole = await checkPass(h, 'full');
    const appointments = passOutcome(whole.detail, 'appointment CRM');
    expect(appointments).toMatchObject({ stopped: false });
    expect(appointments.compared).toBeGreaterThanOrEqual(3);
    expect(appointments.calls).toBe(crm().requests.length - before.crm);
    // The REST interface: the appointment with its sale (request 1) and its files (request 2), nothing else.
    expect(appointments.calls).toBe(2 * appointments.compared);
    expect(passOutcome(whole.detail, 'Zoho CRM').calls).toBe(zoho().api.requests.length - before.zoho);

    const limit = h.config.revenue.callBudget;
    h.config.revenue.callBudget = 5;
    try {
      let compared = 0;
      let passes = 0;
      for (let stopped = true; stopped;) {
        before = received();
        const entry = await checkPass(h, 'full');
        expect(entry.status).toBe('succeeded');
        const part = passOutcome(entry.detail, 'appointment CRM');
        expect(part.calls).toBe(crm().requests.length - before.crm);
        expect(passOutcome(entry.detail, 'Zoho CRM').calls).toBe(zoho().api.requests.length - before.zoho);
        // Two appointments fit in 5 calls, a third would pass it: the pass stops before it.
        expect(part.calls).toBeLessThanOrEqual(5);
        if (part.stopped) expect(part.compared).toBe(2);
        compared += part.compared;
        passes++;
        stopped = part.stopped;
      }
      // Each pass went on where the last one stopped: every appointment compared once.
      expect(compared).toBe(appointments.compared);
      expect(passes).toBe(Math.ceil(appointments.compared / 2));
    } finally {
      h.config.revenue.callBudget = limit;
    }
  });
});

describe('revenue check with REVENUE_AUTO_HEAL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, appointmentCrm: true, recordCrm: true, env: { REVENUE_AUTO_HEAL: 'true' } });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());
  const zoho = () => h.zoho!;
  const crm = () => h.appointmentCrm!;

  /** An approved drawing of these line items pushed to a mapped appointment (PDF, sale, Sold), and a pass past it. */
  async function approvedDrawing(totals: number[], appointmentId: string) {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id, { lineItems: lineItemsOf(totals) });
    crm().addAppointment(appointmentId, { web_url: crm().webUrlOf(appointmentId) });
    await mapAppointment(h, project.id, appointmentId);
    const proposal = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: drawing.id, drawing_version_id: drawing.versionId },
    });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    await checkPass(h, 'changes');
    return { project, drawing, appointmentId, proposal };
  }

  it("heals where crm-sync's own write was the last change, never a rep's later edit", async () => {
    const project = h.service.addProject();
    h.service.addDrawing(project.id);
    const dealId = zoho().addRecord('Deals', undefined, { Deal_Name: 'Deal', Stage: 'Qualification' });
    await mapRecord(h, project.id, dealId, 'Deals');
    const first = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total: 1000 });
    await deliverEvent(h, events.proposalStatusChanged(first));
    await waitFor(async () => (await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'update_deal', status: 'succeeded' })).length === 1 || null, 20_000);
    await checkPass(h, 'changes');

    // A change order's update refused for good: the Deal still shows crm-sync's own last write (1000).
    zoho().api.injectFault({
      method: 'PUT',
      path: `/crm/v8/Deals/${dealId}`,
      times: 1,
      status: 400,
      body: { code: 'INVALID_DATA', status: 'error', message: 'x', details: {} },
    });
    const change = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total: 1250, initial_proposal_id: first.proposal_id });
    await deliverEvent(h, events.proposalStatusChanged(change));
    await waitFor(async () => (await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'update_deal', status: 'failed' })).length === 1 || null, 20_000);
    await checkPass(h, 'changes');
    const [drift] = await driftsOf(h, { project_id: project.id, kind: 'amount' });
    expect(drift).toMatchObject({ service_value: '1250.00', written_value: '1000.00', crm_value: '1000.00', by_crm_sync: true });
    await waitFor(async () => (zoho().revenue.fieldsOf('Deals', dealId).Amount === 1250 ? true : null), 20_000, 'the auto-heal');

    // A rep's later edit waits for a decision.
    zoho().revenue.editByHand('Deals', dealId, { Amount: 1100 });
    await checkPass(h, 'changes');
    const [later] = await driftsOf(h, { project_id: project.id, kind: 'amount' });
    expect(later).toMatchObject({ state: 'open', crm_value: '1100.00', by_crm_sync: false, changed_by: 'Rita Rep' });
    await checkPass(h, 'changes');
    expect(zoho().revenue.fieldsOf('Deals', dealId).Amount).toBe(1100);
  });

  it("the appointment CRM: heals a sale crm-sync's own write left behind; a person's later edits of each kind wait for a decision", async () => {
    const { project, drawing, appointmentId, proposal: first } = await approvedDrawing([300, 200], '9007199254740993777');

    // A change order on a new version of the drawing; the appointment CRM refuses its sale for good: the sale still
    // holds crm-sync's own last write, which auto-heal writes again.
    const revised = h.service.updateDrawing(drawing.id, { lineItems: lineItemsOf([300, 250]) });
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, times: 1, status: 422, body: { error: 'refused' } });
    const change = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: drawing.id, drawing_version_id: revised.versionId },
      initial_proposal_id: first.proposal_id,
    });
    await deliverEvent(h, events.proposalStatusChanged(change));
    await waitFor(
      async () => (await syncLogEntries(h, { target: appointmentId, kind: 'push_line_items', status: 'failed' })).length === 1 || null,
      20_000,
      "the change order's sale to fail",
    );
    await checkPass(h, 'changes');
    const [ours] = await driftsOf(h, { project_id: project.id, kind: 'sale_items' });
    expect(ours).toMatchObject({ by_crm_sync: true });
    expect(ours.crm_value).toMatch(/^total 500\.00; /);
    expect(ours.service_value).toMatch(/^total 550\.00; /);
    await waitFor(() => ((crm().get(appointmentId)!.sale as { total?: number } | null)?.total === 550 ? true : null), 20_000, 'the auto-heal of the sale');

    // A person's later edits of each kind: drifts by someone else, left for a decision through two passes.
    await checkPass(h, 'changes');
    const sale = crm().get(appointmentId)!.sale as { total: number };
    const entries = (await syncLogEntries(h, { target: appointmentId })).length;
    crm().personEdits(appointmentId, { status: 'Cancelled', removeFiles: 'proposal', sale: { total: sale.total - 50 } }, 'Pat Manager');
    await checkPass(h, 'changes');
    await checkPass(h, 'changes');
    const drifts = Object.fromEntries((await driftsOf(h, { project_id: project.id })).map((d) => [d.kind, d]));
    for (const kind of ['status', 'file_missing', 'sale_items'])
      expect(drifts[kind]).toMatchObject({ state: 'open', changed_by: 'Pat Manager', by_crm_sync: false });
    expect((await syncLogEntries(h, { target: appointmentId })).length).toBe(entries);
    expect(crm().get(appointmentId)).toMatchObject({ status: 'Cancelled', sale: { total: sale.total - 50 } });
    expect(crm().filesOf(appointmentId, 'proposal')).toHaveLength(0);

    // Deleted by a person: waits as well.
    crm().personEdits(appointmentId, { sale: null }, 'Pat Manager');
    await checkPass(h, 'changes');
    await checkPass(h, 'changes');
    expect((await driftsOf(h, { project_id: project.id, kind: 'sale_missing' }))[0]).toMatchObject({ state: 'open', by_crm_sync: false });
    expect(crm().get(appointmentId)!.sale).toBeNull();
  });

  it("the appointment CRM: a sale a person deleted stays deleted after crm-sync's later upload moved the appointment's stamp; a record whose push is running is compared once it ends", async () => {
    const { project, drawing, appointmentId } = await approvedDrawing([120, 80], '9007199254740993778');

    // A person deletes the sale crm-sync wrote; then crm-sync uploads the drawing again, held in the CRM while a pass
    // runs: the appointment is not compared while its push is under way.
    crm().personEdits(appointmentId, { sale: null }, 'Pat Manager');
    let release!: () => void;
    const upload = new Promise<void>((resolve) => (release = resolve));
    crm().injectFault({ method: 'POST', path: `/appointments/${appointmentId}/files`, times: 1, until: upload });
    await deliverEvent(h, events.drawingUpdated(h.service.drawingView(h.service.updateDrawing(drawing.id).id)));
    await waitFor(async () => (await syncLogEntries(h, { target: appointmentId, kind: 'push_drawings', status: 'running' })).length === 1 || null, 20_000);
    await checkPass(h, 'changes');
    expect(await driftsOf(h, { project_id: project.id, kind: 'sale_missing' })).toEqual([]);
    release();
    await settled(h, project.id, ['push_drawings']);

    // The upload moved the appointment's stamp past the delete, by crm-sync: the sale crm-sync wrote is gone all the
    // same, which is someone's removal, never crm-sync's own write to heal.
    expect(crm().get(appointmentId)!.updated_by).not.toBe('Pat Manager');
    await checkPass(h, 'changes');
    await checkPass(h, 'changes');
    const [missing] = await driftsOf(h, { project_id: project.id, kind: 'sale_missing' });
    expect(missing).toMatchObject({ state: 'open', by_crm_sync: false, written_value: expect.stringMatching(/^total /) });
    expect(crm().get(appointmentId)!.sale).toBeNull();
  });

  it("Zoho: heals a Quote crm-sync's own write left behind, never a person's later edit of its rows", async () => {
    const fallback = zoho().revenue.addProduct('Services', 'SERVICES');
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: { ...RECORD_CRM_DEFAULTS, quote_line_items: true, fallback_product_id: fallback },
    });
    expect(`${res.status} ${await res.text()}`).toMatch(/^200 /);
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id, { lineItems: lineItemsOf([80, 20]) });
    const dealId = zoho().addRecord('Deals', undefined, {
      Deal_Name: 'Deal with a Quote',
      Stage: 'Qualification',
      Account_Name: { id: '4150868000000000777', name: 'Acme' },
    });
    await mapRecord(h, project.id, dealId, 'Deals');
    const first = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: drawing.id, drawing_version_id: drawing.versionId },
    });
    await deliverEvent(h, events.proposalStatusChanged(first));
    await waitFor(
      async () => (await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'push_quote', status: 'succeeded' })).length === 1 || null,
      20_000,
      'push_quote',
    );
    const [quote] = zoho().revenue.quotesOfDeal(dealId);
    const netTotals = () => (zoho().revenue.fieldsOf('Quotes', quote.id).Quoted_Items as Array<Record<string, unknown>>).map((r) => Number(r.Net_Total));
    await checkPass(h, 'changes');

    // A change order whose Quote update Zoho refuses for good: the Quote holds crm-sync's own last write (80 + 20).
    const revised = h.service.updateDrawing(drawing.id, { lineItems: lineItemsOf([80, 50]) });
    zoho().api.injectFault({
      method: 'PUT',
      path: `/crm/v8/Quotes/${quote.id}`,
      times: 1,
      status: 400,
      body: { code: 'INVALID_DATA', status: 'error', message: 'x', details: {} },
    });
    const change = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: drawing.id, drawing_version_id: revised.versionId },
      initial_proposal_id: first.proposal_id,
    });
    await deliverEvent(h, events.proposalStatusChanged(change));
    await waitFor(
      async () => (await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'push_quote', status: 'failed' })).length === 1 || null,
      20_000,
      "the change order's push_quote to fail",
    );
    await checkPass(h, 'changes');
    const [rows] = await driftsOf(h, { project_id: project.id, kind: 'quote_rows' });
    expect(rows).toMatchObject({ service_value: '80.00, 50.00', written_value: '80.00, 20.00', crm_value: '80.00, 20.00', by_crm_sync: true });
    await waitFor(() => (netTotals().join() === '80,50' ? true : null), 20_000, 'the auto-heal of the Quote');
    await checkPass(h, 'changes');
    const pushes = (await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'push_quote' })).length;

    // Rita edits a row: a drift of hers, left for a decision through two passes.
    const edited = (zoho().revenue.fieldsOf('Quotes', quote.id).Quoted_Items as Array<Record<string, unknown>>).map((r) => ({ ...r }));
    Object.assign(edited[1], { Quantity: 0.5, Total: 25, Total_After_Discount: 25, Net_Total: 25 });
    zoho().revenue.editByHand('Quotes', quote.id, { Quoted_Items: edited });
    await checkPass(h, 'changes');
    await checkPass(h, 'changes');
    const [later] = await driftsOf(h, { project_id: project.id, kind: 'quote_rows' });
    expect(later).toMatchObject({ state: 'open', crm_value: '80.00, 25.00', changed_by: 'Rita Rep', by_crm_sync: false });
    expect(netTotals()).toEqual([80, 25]);
    expect(await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'push_quote' })).toHaveLength(pushes);
    // Accepted: the rows stay Rita's through a full pass.
    await decide(h, later, 'accept');
    await checkPass(h, 'full');
    expect((await driftsOf(h, { project_id: project.id, kind: 'quote_rows' }))[0].state).toBe('accepted');
    expect(netTotals()).toEqual([80, 25]);
  });
});
