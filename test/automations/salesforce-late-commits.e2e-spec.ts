import { SalesforceSim } from '../../sim/salesforce/index.js';
import { readChangesNow } from '../support/automations.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';

/**
 * An improveit 360 save whose transaction started before another appointment's and committed after the read that
 * saw that other one: its SystemModstamp lies behind the read's watermark. Each read looks
 * APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS behind its watermark again, so it still becomes a project, once.
 */
describe('appointments committed late still become projects', () => {
  const sim = new SalesforceSim();
  let h: Harness;

  beforeAll(async () => {
    await sim.start();
    h = await startHarness({ redisDb: 12, env: { ...sim.envFor(), AUTOMATION_POLL_SECONDS: '0', APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS: '60' } });
    h.service.addTemplate('Standard');
    const saved = await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: true, owner: 'owner@example.com' } });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await h?.close();
    await sim.stop();
  });

  const prospect = (last: string) =>
    sim.insertRow('i360__Prospect__c', { Name: `Kim ${last}`, i360__Primary_First_Name__c: 'Kim', i360__Primary_Last_Name__c: last });
  const projectsOf = (id: string) => [...h.service.projects.values()].filter((p) => p.name.includes(id));

  it('reads a change stamped behind the watermark once it commits, and makes it one project', async () => {
    // The late one's transaction starts first (its stamp), and commits only after the next read; the other is saved a
    // second later and is visible at once.
    const late = sim.commitLate(APPOINTMENT, { i360__Prospect__c: prospect('Late') }, { stampedAt: new Date(), visibleInMs: 8_000 });
    const early = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect('Early') }, new Date(Date.now() + 1_000));
    await readChangesNow(h, 'appointment-crm');
    expect(projectsOf(early)).toHaveLength(1);
    expect(sim.committed(late)).toBe(false);
    expect(projectsOf(late)).toHaveLength(0);

    await waitFor(() => sim.committed(late), 20_000, 'the late transaction to commit');
    expect(Date.parse(String(sim.row(APPOINTMENT, late)!.SystemModstamp))).toBeLessThan(Date.parse(String(sim.row(APPOINTMENT, early)!.SystemModstamp)));
    await readChangesNow(h, 'appointment-crm');
    expect(projectsOf(late)).toHaveLength(1);

    // Read again: the window holds both, and nothing is made twice.
    await readChangesNow(h, 'appointment-crm');
    expect(projectsOf(late)).toHaveLength(1);
    expect(projectsOf(early)).toHaveLength(1);
  });
});
