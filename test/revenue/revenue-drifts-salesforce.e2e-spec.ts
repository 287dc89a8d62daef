import { SalesforceSim } from '../../sim/salesforce/index.js';
import { events } from '../../sim/service/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { syncLogEntry } from '../support/tables.js';
import type { Drift } from '../support/revenue-drift.js';

const APPOINTMENT = 'i360__Appointment__c';
const SALE = 'i360__Sale__c';
const SALE_ITEM = 'i360__Sale_Item__c';
const FINISHED = ['succeeded', 'failed', 'skipped', 'waiting'];

/**
 * The revenue check with the appointment CRM on Salesforce (improveit 360 classic, crm-sync pushing): a person's
 * edits in the org (result, sale deleted, a sale item changed) are drifts naming LastModifiedById and SystemModstamp,
 * and heal writes the service's values again.
 */
describe('revenue check: the appointment CRM on Salesforce', () => {
  const sim = new SalesforceSim();
  let h: Harness;
  beforeAll(async () => {
    await sim.start();
    h = await startHarness({ redisDb: 12, env: { ...sim.daemonEnv(), APPOINTMENT_CRM_PUSHES: 'crm-sync' } });
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

  it("a person's result change, deleted sale and edited item are drifts with who and when; heal writes them again", async () => {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Ana Ruiz', i360__Primary_Last_Name__c: 'Ruiz' });
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });
    const project = h.service.addProject();
    h.service.addDrawing(project.id);
    await mapAppointment(h, project.id, appointmentId);
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', total: 990 });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    const entries = await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status'], 30_000);
    expect(entries.filter((e) => e.kind !== 'route_delivery').map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await pass('full');
    expect(await drifts(project.id)).toEqual({});

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
    expect(found.sale_missing).toMatchObject({ state: 'open', service_value: 'total 990.00', crm_value: null });

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
});
