import { RECORD_CRM_DEFAULTS } from '../../src/crm-settings/automation-settings.js';
import { events } from '../../sim/service/index.js';
import { deliverEvent } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntries } from '../support/tables.js';
import { FINISHED, checkPass, driftsOf, finished, lineItemsOf } from '../support/revenue-drift.js';

/**
 * The revenue check on a Zoho Quote crm-sync made from the approved drawing's line items: a person's edit of its rows
 * or of what makes its Grand_Total is a drift (quote_rows, quote_total) with the three values and Modified_By; heal
 * replaces the rows through push_quote, accept leaves the Quote be.
 */
describe("revenue check: a Zoho Quote's Grand_Total and rows", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, recordCrm: true });
    h.service.addTemplate('Standard');
    const fallback = h.zoho!.revenue.addProduct('Services', 'SERVICES');
    const res = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: { ...RECORD_CRM_DEFAULTS, quote_line_items: true, fallback_product_id: fallback },
    });
    expect(`${res.status} ${await res.text()}`).toMatch(/^200 /);
  });
  afterAll(() => h.close());

  const zoho = () => h.zoho!;

  /** An approved drawing of a mapped Deal pushed as a Quote (push_quote succeeded), and the check's position past it. */
  async function approvedQuote(totals: number[]) {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id, { lineItems: lineItemsOf(totals, 'QUOTE-DRIFT') });
    const dealId = zoho().addRecord('Deals', undefined, {
      Deal_Name: `Deal of ${project.name}`,
      Stage: 'Qualification',
      // A Quote needs its Account_Name (Zoho refuses one without): crm-sync takes the Deal's.
      Account_Name: { id: '4150868000000000777', name: 'Acme' },
    });
    await mapRecord(h, project.id, dealId, 'Deals');
    const proposal = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: drawing.id, drawing_version_id: drawing.versionId },
    });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    const pushed = await waitFor(
      async () => {
        const [entry] = await syncLogEntries(h, { target: `Deals/${dealId}`, kind: 'push_quote' });
        return entry && FINISHED.includes(entry.status) ? entry : null;
      },
      20_000,
      'push_quote to finish',
    );
    expect(`${pushed.status} ${pushed.error}`).toMatch(/^succeeded /);
    const [quote] = zoho().revenue.quotesOfDeal(dealId);
    await checkPass(h, 'changes');
    expect(await driftsOf(h, { project_id: project.id })).toEqual([]);
    return { project, drawing, proposal, dealId, quoteId: quote.id, pushed };
  }

  const rowsOf = (quoteId: string) => zoho().revenue.fieldsOf('Quotes', quoteId).Quoted_Items as Array<Record<string, unknown>>;
  const netTotals = (quoteId: string) => rowsOf(quoteId).map((r) => Number(r.Net_Total));

  it("a person's edit of a row is a quote_rows and a quote_total drift with the three values and Modified_By; heal writes the rows again", async () => {
    const q = await approvedQuote([100, 250.5, 49.5]);
    expect(Number(zoho().revenue.fieldsOf('Quotes', q.quoteId).Grand_Total)).toBe(400);
    // Rita takes the second row down to one half: its Net_Total and so the Quote's totals follow.
    const rows = rowsOf(q.quoteId).map((r) => ({ ...r }));
    Object.assign(rows[1], { Quantity: 0.5, Total: 125.25, Total_After_Discount: 125.25, Net_Total: 125.25 });
    zoho().revenue.editByHand('Quotes', q.quoteId, { Quoted_Items: rows });
    expect(Number(zoho().revenue.fieldsOf('Quotes', q.quoteId).Grand_Total)).toBe(274.75);

    const entry = await checkPass(h, 'changes');
    expect(entry.detail).toMatch(/new drift/);
    const drifts = await driftsOf(h, { project_id: q.project.id, crm: 'record' });
    const byKind = Object.fromEntries(drifts.map((d) => [d.kind, d]));
    expect(Object.keys(byKind).sort()).toEqual(['quote_rows', 'quote_total']);
    const common = {
      state: 'open',
      target: `Quotes/${q.quoteId}`,
      written_entry_id: q.pushed.id,
      changed_by: 'Rita Rep',
      by_crm_sync: false,
    };
    expect(byKind.quote_total).toMatchObject({ ...common, service_value: '400.00', written_value: '400.00', crm_value: '274.75' });
    expect(byKind.quote_rows).toMatchObject({
      ...common,
      service_value: '100.00, 250.50, 49.50',
      written_value: '100.00, 250.50, 49.50',
      crm_value: '100.00, 125.25, 49.50',
    });
    expect(byKind.quote_rows.link).toMatch(new RegExp(`/tab/Quotes/${q.quoteId}$`));
    // Modified_Time is to the second.
    const editedAt = zoho()
      .revenue.quotes()
      .find((x) => x.id === q.quoteId)!.modifiedAt;
    expect(Math.floor(Date.parse(byKind.quote_rows.changed_at!) / 1000)).toBe(Math.floor(editedAt / 1000));

    // Heal: the normal push_quote replaces the Quote's rows; the Quote reads back as the service's.
    const heal = await h.admin(`/api/revenue/drifts/${byKind.quote_rows.id}/heal`, { method: 'POST' });
    expect(heal.status).toBe(202);
    const { id: healId } = (await heal.json()) as { id: string };
    expect(await finished(h, healId)).toMatchObject({ kind: 'push_quote', status: 'succeeded', actor: 'admin' });
    expect(zoho().revenue.quotesOfDeal(q.dealId)).toHaveLength(1);
    expect(netTotals(q.quoteId)).toEqual([100, 250.5, 49.5]);
    expect(Number(zoho().revenue.fieldsOf('Quotes', q.quoteId).Grand_Total)).toBe(400);

    await checkPass(h, 'changes');
    const after = Object.fromEntries((await driftsOf(h, { project_id: q.project.id })).map((d) => [d.kind, d.state]));
    expect(after).toEqual({ quote_rows: 'healed', quote_total: 'healed' });
  });

  it("a Grand_Total changed by a person's Adjustment is a quote_total drift alone; accepted, it raises nothing again", async () => {
    const q = await approvedQuote([80, 20]);
    zoho().revenue.editByHand('Quotes', q.quoteId, { Adjustment: -15, Grand_Total: 85 });
    await checkPass(h, 'changes');
    const drifts = await driftsOf(h, { project_id: q.project.id, crm: 'record' });
    expect(drifts.map((d) => d.kind)).toEqual(['quote_total']);
    expect(drifts[0]).toMatchObject({
      state: 'open',
      service_value: '100.00',
      written_value: '100.00',
      written_entry_id: q.pushed.id,
      crm_value: '85.00',
      changed_by: 'Rita Rep',
      by_crm_sync: false,
    });

    const accepted = await h.admin(`/api/revenue/drifts/${drifts[0].id}/accept`, { method: 'POST' });
    expect(`${accepted.status} ${await accepted.text()}`).toMatch(/^200 .*"state":"accepted"/);
    // A later edit that leaves the figures be, then a changes pass and a full one: the accepted drift stays so, no new one.
    zoho().revenue.editByHand('Quotes', q.quoteId, { Description: 'touched' });
    await checkPass(h, 'changes');
    await checkPass(h, 'full');
    const after = await driftsOf(h, { project_id: q.project.id });
    expect(after.map((d) => [d.kind, d.state])).toEqual([['quote_total', 'accepted']]);
    expect(after[0].id).toBe(drifts[0].id);
    expect(Number(zoho().revenue.fieldsOf('Quotes', q.quoteId).Grand_Total)).toBe(85);
  });

  it("an accepted Grand_Total is raised again once the service's side changes: a change order whose push failed", async () => {
    const q = await approvedQuote([80, 20]);
    zoho().revenue.editByHand('Quotes', q.quoteId, { Adjustment: -15, Grand_Total: 85 });
    await checkPass(h, 'changes');
    const [drift] = await driftsOf(h, { project_id: q.project.id, kind: 'quote_total' });
    const accepted = await h.admin(`/api/revenue/drifts/${drift.id}/accept`, { method: 'POST' });
    expect(accepted.status).toBe(200);

    // A change order on a new version of the drawing (80 + 50); Zoho refuses its Quote update for good.
    const revised = h.service.updateDrawing(q.drawing.id, { lineItems: lineItemsOf([80, 50], 'QUOTE-DRIFT') });
    zoho().api.injectFault({
      method: 'PUT',
      path: `/crm/v8/Quotes/${q.quoteId}`,
      times: 1,
      status: 400,
      body: { code: 'INVALID_DATA', status: 'error', message: 'x', details: {} },
    });
    const change = h.service.addProposal({
      project_id: q.project.id,
      status: 'APPROVED',
      approved_option: { drawing_id: q.drawing.id, drawing_version_id: revised.versionId },
      initial_proposal_id: q.proposal.proposal_id,
    });
    await deliverEvent(h, events.proposalStatusChanged(change));
    await waitFor(
      async () => (await syncLogEntries(h, { target: `Deals/${q.dealId}`, kind: 'push_quote', status: 'failed' })).length === 1 || null,
      20_000,
      "the change order's push_quote to fail",
    );
    await checkPass(h, 'full');
    const drifts = Object.fromEntries((await driftsOf(h, { project_id: q.project.id })).map((d) => [d.kind, d]));
    // The Quote still holds crm-sync's last write (80 + 20) under Rita's Adjustment.
    expect(drifts.quote_total).toMatchObject({
      id: drift.id,
      state: 'open',
      service_value: '130.00',
      written_value: '100.00',
      written_entry_id: q.pushed.id,
      crm_value: '85.00',
    });
    expect(drifts.quote_rows).toMatchObject({ state: 'open', service_value: '80.00, 50.00', written_value: '80.00, 20.00', crm_value: '80.00, 20.00' });
  });
});
