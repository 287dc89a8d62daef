import { SalesforceSim } from '../../sim/salesforce/index.js';
import { idempotencyKey } from '../../src/appointment-crm/idempotency-key.js';
import { SelectedAppointmentCrm } from '../../src/appointment-crm/selected-appointment-crm.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { fastRetries, startHarness, uniqueDatabaseUrl, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';
const SALE = 'i360__Sale__c';
const KEY = idempotencyKey('1', 'test');

/**
 * Salesforce's errors and limits as the adapter meets them, on two replicas (in-process apps on one database and
 * Redis): a 401 that a new token cannot cure is "unauthorized" at once, a locked record is waited for, and a Developer
 * Edition org gets no more than 5 requests at once from both replicas together.
 */
describe('Salesforce errors and limits', () => {
  const sim = new SalesforceSim();
  const databaseUrl = uniqueDatabaseUrl();
  let replicas: Harness[] = [];
  const crm = (i = 0) => replicas[i].app.get(SelectedAppointmentCrm);

  beforeAll(async () => {
    await sim.start();
    // A Developer Edition org: 5 long-running requests at once (the last test); the others do not mind.
    sim.makeDeveloperOrg();
    // Replicas of one deployment share the queue prefix, under which they share state in Redis.
    const env = { ...sim.envFor(), AUTOMATION_POLL_SECONDS: '0', QUEUE_PREFIX: `crm-sync-test-${process.pid}-${Date.now()}` };
    const first = await startHarness({ redisDb: 11, env, databaseUrl, tune: fastRetries });
    replicas = [first, await startHarness({ redisDb: 11, env, databaseUrl, tune: fastRetries })];
  });
  afterEach(() => {
    sim.sessionRefusal = null;
    sim.lockedRecords.clear();
    sim.longRequestMs = 0;
    sim.instance.clearFaults();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await sim.stop();
    await dropDatabase(databaseUrl).catch(() => undefined);
  });

  function addAppointment(): string {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Lou Keller', i360__Primary_Last_Name__c: 'Keller' });
    return sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect, i360__Result__c: null });
  }

  it('fails at once as unauthorized on a 401 no new token cures, refreshing at most once', async () => {
    await crm().listChangedAppointments(null, null, 10);
    sim.sessionRefusal = 'BlackTab users cannot perform API operations';
    const issued = sim.oauth.tokensIssued;
    const queries = sim.instance.requestsTo('GET', /\/query/).length;
    await expect(crm().listChangedAppointments(null, null, 10)).rejects.toMatchObject({ failure: 'unauthorized', status: 401 });
    expect(sim.oauth.tokensIssued - issued).toBe(0);
    expect(sim.instance.requestsTo('GET', /\/query/).length - queries).toBe(1);
  });

  it('takes one new token for an ended session, and calls a new token refused as well unauthorized', async () => {
    await crm().listChangedAppointments(null, null, 10);
    const issued = sim.oauth.tokensIssued;
    sim.instance.injectFault({
      method: 'GET',
      path: /\/query/,
      times: 10,
      status: 401,
      body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
    });
    await expect(crm().listChangedAppointments(null, null, 10)).rejects.toMatchObject({ failure: 'unauthorized', status: 401 });
    expect(sim.oauth.tokensIssued - issued).toBe(1);
  });

  it('waits for a locked appointment: Sold and the sale land once the lock is let go', async () => {
    const appointment = addAppointment();
    sim.lockedRecords.add(appointment);
    const refusals = sim.lockRefusals;
    const sold = crm().setStatus(appointment, 'Sold', KEY);
    const item = { external_product_id: null, product_id: null, name: 'Roof', sku: null, unit: null, quantity: 1, price: 1200, cost: null, total: 1200 };
    const sale = crm(1).putSale(
      appointment,
      {
        items: [item],
        subtotal: 1200,
        discount: 0,
        discount_description: '',
        markup: 0,
        markup_description: '',
        taxes: [],
        total: 1200,
        drawing_id: '1',
        drawing_version_id: '1',
      },
      KEY,
    );
    while (sim.lockRefusals < refusals + 2) await new Promise((resolve) => setTimeout(resolve, 10));
    sim.lockedRecords.clear();
    await Promise.all([sold, sale]);
    expect(sim.row(APPOINTMENT, appointment)?.i360__Result__c).toBe('Sold');
    expect(sim.rows(SALE).filter((s) => s.i360__Appointment__c === appointment)).toHaveLength(1);
  });

  it('sends a Developer Edition org no more than 5 requests at once from both replicas together', async () => {
    sim.longRequestMs = 150;
    sim.maxInFlight = 0;
    const found = await Promise.all(Array.from({ length: 16 }, (_, i) => crm(i % 2).searchAppointments({ q: `Keller ${i}` })));
    expect(found).toHaveLength(16);
    expect(sim.maxInFlight).toBeLessThanOrEqual(5);
    expect(sim.maxInFlight).toBeGreaterThan(1);
  });
});
