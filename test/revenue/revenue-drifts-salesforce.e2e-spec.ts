import { SalesforceSim } from '../../sim/salesforce/index.js';
import { events } from '../../sim/service/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { syncLogEntry } from '../support/tables.js';
import { passOutcome, type Drift } from '../support/revenue-drift.js';

const APPOINTMENT = 'i360__Appointment__c';
const SALE = 'i360__Sale__c';
const SALE_ITEM = 'i360__Sale_Item__c';
const FINISHED = ['succeeded', 'failed', 'skipped', 'waiting'];

/**
 * The revenue check with the appointment CRM on Salesforce (improveit 360 classic, crm-sync pushing), auto-heal on: a
 * person's edits in the org (result, sale deleted, a sale item or the sale's total changed, the proposal file deleted)
 * are drifts naming LastModifiedById and SystemModstamp, found by one changes pass (the sale, its items and the files
 * read through QueryAll), never healed without a decision; heal writes the service's values again, accept leaves them.
 */
describe('revenue check: the appointment CRM on Salesforce', () => {
  const sim = new SalesforceSim();
  let h: Harness;
  beforeAll(async () => {
    await sim.start();
    h = await startHarness({ redisDb: 12, env: { ...sim.daemonEnv(), APPOINTMENT_CRM_PUSHES: 'crm-sync', REVENUE_AUTO_HEAL: 'true' } });
    h.service.addTemplate('Standard');
  });
  afterAll(async () => {
    await h?.close();
    await sim.stop();
  });

  async function pass(scope: 'changes' | 'full') {
    const res = await h.admin('/api/revenue/check', { method: 'POST', json: { scope } });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    return waitFor(async () => {
      const entry = await syncLogEntry(h, { id });
      return entry && FINISHED.includes(entry.status) ? entry : null;
    }, 20_000);
  }

  async function drifts(projectId: string): Promise<Record<string, Drift>> {
    const res = await h.admin(`/api/revenue/drifts?project_id=${projectId}`);
    expect(res.status).toBe(200);
    return Object.fromEntries(((await res.json()) as { items: Drift[] }).items.map((d) => [d.kind, d]));
  }

  async function decide(drift: Drift, decision: 'heal' | 'accept') {
    const res = await h.admin(`/api/revenue/drifts/${drift.id}/${decision}`, { method: 'POST' });
    if (decision === 'accept') {
      expect(`${res.status} ${await res.text()}`).toMatch(/^200 .*"state":"accepted"/);
      return null;
    }
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const entry = await waitFor(async () => {
      const found = await syncLogEntry(h, { id });
      return found && FINISHED.includes(found.status) ? found : null;
    }, 20_000);
    expect(`${entry.status} ${entry.error}`).toMatch(/^succeeded /);
    return entry;
  }

  /** An appointment crm-sync pushed an approval to (file, sale, Sold), checked in agreement by a full pass. */
  async function approvedAppointment(total: number) {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Ana Ruiz', i360__Primary_Last_Name__c: 'Ruiz' });
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });
    const project = h.service.addProject();
    h.service.addDrawing(project.id);
    await mapAppointment(h, project.id, appointmentId);
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    const entries = await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status'], 30_000);
    expect(entries.filter((e) => e.kind !== 'route_delivery').map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await pass('full');
    expect(await drifts(project.id)).toEqual({});
    return { project, appointmentId };
  }

  const saleOf = (appointmentId: string) => sim.rows(SALE).find((s) => s.i360__Appointment__c === appointmentId);
  const queryAllCalls = () => sim.instance.requestsTo('GET', /\/queryAll\/?$/).length;

  it("a person's result change, deleted sale and edited item are drifts with who and when; heal writes them again", async () => {
    const { project, appointmentId } = await approvedAppointment(990);

    // A sale item's quantity edited: the item's own record, found by the full pass.
    const [sale] = sim.rows(SALE).filter((s) => s.i360__Appointment__c === appointmentId);
    const [item] = sim.rows(SALE_ITEM).filter((i) => i.i360__Sale__c === sale.Id);
    sim.personEdits(SALE_ITEM, String(item.Id), { i360__Quantity__c: 999 });
    await pass('full');
    const edited = await drifts(project.id);
    expect(Object.keys(edited)).toEqual(['sale_items']);
    expect(edited.sale_items.crm_value).toContain('× 999');
    expect(edited.sale_items.by_crm_sync).toBe(false);

    // The result set back and the sale deleted by a person: found by the changes pass (the appointment's SystemModstamp).
    await pass('changes');
    const person = sim.personEdits(APPOINTMENT, appointmentId, { i360__Result__c: 'Cancelled' });
    sim.personEdits(SALE, String(sale.Id), null);
    await pass('changes');
    const found = await drifts(project.id);
    expect(found.status).toMatchObject({ state: 'open', service_value: 'Sold', written_value: 'Sold', crm_value: 'Cancelled', by_crm_sync: false });
    expect(found.status.changed_by).toBe(person);
    expect(Date.parse(found.status.changed_at!)).toBe(Date.parse(String(sim.row(APPOINTMENT, appointmentId)!.SystemModstamp)));
    expect(found.sale_missing).toMatchObject({ state: 'open', service_value: 'total 990.00', crm_value: null, changed_by: person, by_crm_sync: false });
    // Auto-heal is on: a person's edits wait for a decision, pass after pass.
    await pass('changes');
    expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c).toBe('Cancelled');
    expect(saleOf(appointmentId)).toBeUndefined();

    for (const kind of ['status', 'sale_missing']) {
      const res = await h.admin(`/api/revenue/drifts/${found[kind].id}/heal`, { method: 'POST' });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      await waitFor(async () => {
        const entry = await syncLogEntry(h, { id });
        return entry && FINISHED.includes(entry.status) ? entry : null;
      }, 20_000);
      expect((await syncLogEntry(h, { id }))!.status).toBe('succeeded');
    }
    expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c).toBe('Sold');
    expect(sim.rows(SALE).filter((s) => s.i360__Appointment__c === appointmentId)).toHaveLength(1);
    await pass('full');
    const after = await drifts(project.id);
    expect(Object.values(after).filter((d) => d.state === 'open')).toEqual([]);
  });

  it('a deleted sale alone and an edited sale item alone are each found by one changes pass (QueryAll), with who deleted or edited it', async () => {
    const { project, appointmentId } = await approvedAppointment(640);
    await pass('changes');

    // A sale item's quantity edited, nothing else: neither the appointment's nor the sale's stamp moves.
    const sale = saleOf(appointmentId)!;
    // The sale's total as crm-sync wrote it: the approved drawing's line items' (D2).
    const sold = Number(sale.i360__Sold_Price__c);
    const [item] = sim.rows(SALE_ITEM).filter((i) => i.i360__Sale__c === sale.Id);
    const appointmentStamp = sim.row(APPOINTMENT, appointmentId)!.SystemModstamp;
    const person = sim.personEdits(SALE_ITEM, String(item.Id), { i360__Quantity__c: 7 });
    expect(sim.row(APPOINTMENT, appointmentId)!.SystemModstamp).toBe(appointmentStamp);
    const before = queryAllCalls();
    await pass('changes');
    expect(queryAllCalls() - before).toBeGreaterThanOrEqual(3);
    const edited = await drifts(project.id);
    expect(Object.keys(edited)).toEqual(['sale_items']);
    expect(edited.sale_items).toMatchObject({ state: 'open', changed_by: person, by_crm_sync: false });
    expect(edited.sale_items.service_value).toBe(edited.sale_items.written_value);
    expect(edited.sale_items.crm_value).toContain('× 7');
    expect(Date.parse(edited.sale_items.changed_at!)).toBe(Date.parse(String(sim.row(SALE_ITEM, String(item.Id))!.SystemModstamp)));
    await decide(edited.sale_items, 'accept');

    // The sale deleted, nothing else: it sits in the Recycle Bin, where QueryAll reads who deleted it and when.
    const deletedAt = new Date();
    sim.personEdits(SALE, String(sale.Id), null, deletedAt);
    await pass('changes');
    const gone = await drifts(project.id);
    expect(gone.sale_missing).toMatchObject({
      state: 'open',
      service_value: 'total 640.00',
      written_value: 'total 640.00',
      crm_value: null,
      changed_by: person,
      by_crm_sync: false,
    });
    expect(Date.parse(gone.sale_missing.changed_at!)).toBe(Date.parse(SalesforceSim.dateTime(deletedAt)));
    await pass('changes');
    expect(saleOf(appointmentId)).toBeUndefined();

    // Healed: a new sale with the service's items; the item drift accepted before agrees again.
    await decide(gone.sale_missing, 'heal');
    expect(saleOf(appointmentId)).toMatchObject({ i360__Sold_Price__c: sold });
    await pass('changes');
    expect(Object.fromEntries(Object.entries(await drifts(project.id)).map(([k, d]) => [k, d.state]))).toEqual({
      sale_items: 'healed',
      sale_missing: 'healed',
    });

    // The sale's total changed by a person (i360__Sold_Price__c): a sale_items drift; healed, the total is the service's.
    sim.personEdits(SALE, String(saleOf(appointmentId)!.Id), { i360__Sold_Price__c: sold - 40 });
    await pass('changes');
    const total = (await drifts(project.id)).sale_items;
    expect(total).toMatchObject({ state: 'open', changed_by: person, by_crm_sync: false });
    expect(total.service_value).toMatch(new RegExp(`^total ${sold.toFixed(2)}; `));
    expect(total.crm_value).toMatch(new RegExp(`^total ${(sold - 40).toFixed(2)}; `));
    await decide(total, 'heal');
    expect(saleOf(appointmentId)).toMatchObject({ i360__Sold_Price__c: sold });
  });

  it('the proposal file deleted in the org is a file_missing drift naming who deleted it; not healed until asked, then uploaded again', async () => {
    const { project, appointmentId } = await approvedAppointment(310);
    await pass('changes');
    const [file] = sim.filesOf(appointmentId);
    expect(file).toBeDefined();
    const deletedAt = new Date();
    const person = sim.personEdits('ContentDocument', file.contentDocumentId, null, deletedAt);
    expect(sim.filesOf(appointmentId)).toEqual([]);
    await pass('changes');
    const found = await drifts(project.id);
    expect(Object.keys(found)).toEqual(['file_missing']);
    expect(found.file_missing).toMatchObject({
      state: 'open',
      service_value: expect.stringMatching(/^the signed proposal \S+$/),
      written_value: 'proposal file uploaded',
      crm_value: 'no proposal file',
      changed_by: person,
      by_crm_sync: false,
    });
    expect(Date.parse(found.file_missing.changed_at!)).toBe(Date.parse(SalesforceSim.dateTime(deletedAt)));
    await pass('changes');
    expect(sim.filesOf(appointmentId)).toEqual([]);

    await decide(found.file_missing, 'heal');
    await waitFor(() => sim.filesOf(appointmentId).length === 1 || null, 10_000, 'the proposal file uploaded again');
    await pass('full');
    expect((await drifts(project.id)).file_missing.state).toBe('healed');

    // Deleted again and the result set back, both accepted: a full pass leaves them so, and the org as the person left it.
    sim.personEdits('ContentDocument', sim.filesOf(appointmentId)[0].contentDocumentId, null);
    sim.personEdits(APPOINTMENT, appointmentId, { i360__Result__c: 'Cancelled' });
    await pass('changes');
    const again = await drifts(project.id);
    expect(again.status).toMatchObject({ state: 'open', crm_value: 'Cancelled', changed_by: person });
    expect(again.file_missing).toMatchObject({ state: 'open', changed_by: person });
    await decide(again.status, 'accept');
    await decide(again.file_missing, 'accept');
    await pass('full');
    const after = await drifts(project.id);
    expect([after.status.state, after.file_missing.state]).toEqual(['accepted', 'accepted']);
    expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c).toBe('Cancelled');
    expect(sim.filesOf(appointmentId)).toEqual([]);
  });

  it('a pass counts every call the org received (the files, the sale, a missing file); a small budget stops it and the next goes on', async () => {
    await approvedAppointment(120);
    const dataCalls = () => sim.instance.requests.filter((r) => r.path.startsWith('/services/data/')).length;
    let before = dataCalls();
    const whole = passOutcome((await pass('full')).detail, 'appointment CRM');
    expect(whole.stopped).toBe(false);
    // The appointment, its files (3), its sale and items (2) each; a missing proposal file's delete (the test above) one more.
    expect(whole.calls).toBe(dataCalls() - before);
    expect(whole.calls).toBeGreaterThanOrEqual(6 * whole.compared);
    before = dataCalls();
    const changes = passOutcome((await pass('changes')).detail, 'appointment CRM');
    expect(changes.calls).toBe(dataCalls() - before);

    // Room for one appointment (about six calls), not two: each pass compares one, and the next goes on after it.
    const limit = h.config.revenue.callBudget;
    h.config.revenue.callBudget = 8;
    try {
      let compared = 0;
      for (let stopped = true; stopped;) {
        before = dataCalls();
        const part = passOutcome((await pass('full')).detail, 'appointment CRM');
        expect(part.calls).toBe(dataCalls() - before);
        expect(part.calls).toBeLessThanOrEqual(8);
        expect(part.compared).toBe(1);
        compared += part.compared;
        stopped = part.stopped;
      }
      expect(compared).toBe(whole.compared);
    } finally {
      h.config.revenue.callBudget = limit;
    }
  });
});
