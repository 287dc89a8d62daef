import { SalesforceSim } from '../../sim/salesforce/index.js';
import { SalesforceOrgsService } from '../../src/appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import { SelectedAppointmentCrm } from '../../src/appointment-crm/selected-appointment-crm.js';
import { readChangesNow } from '../support/automations.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const APPOINTMENT = 'i360core__Appointment__c';
const OWNER = 'owner@example.com';

/**
 * The appointment CRM as an improveit 360 Lightning org (the simulator's, built from the public evidence: the
 * customer in standard Account and Contact, the appointment carrying the Contact's name and e-mail, the address and
 * a lookup to its Account), set in the environment with the Lightning preset: the connection is usable, and a new
 * appointment becomes one mapped project with the customer's name and e-mail from the Contact, the address from the
 * appointment and the phone from the Account.
 */
describe('the appointment CRM on Salesforce (improveit 360 Lightning)', () => {
  const sim = new SalesforceSim({ schema: 'i360core__' });
  let h: Harness;

  beforeAll(async () => {
    await sim.start();
    h = await startHarness({ redisDb: 10, env: { ...sim.daemonEnv(), AUTOMATION_POLL_SECONDS: '0' } });
  });
  afterAll(async () => {
    await h?.close();
    await sim.stop();
  });

  /** A customer as the Lightning package keeps one: an Account, its Contact, and a sales appointment naming both. */
  function addAppointment(first: string, last: string, email: string): string {
    const account = sim.insertRow('Account', { Name: `${last} household`, Phone: '(512) 555-0123', BillingStreet: '9 Billing Rd', BillingCity: 'Elsewhere' });
    const contact = sim.insertRow('Contact', { AccountId: account, FirstName: first, LastName: last, Email: email });
    const rep = sim.insertRow('i360core__Staff__c', { Name: 'Lee Rep', i360core__Email__c: 'lee@example.com' });
    return sim.insertRow(APPOINTMENT, {
      i360core__Account__c: account,
      i360core__Contact__c: contact,
      i360core__Sales_Rep_1__c: rep,
      i360core__Appointment_Date_Time__c: '2026-12-04T15:30:00.000+0000',
      i360core__Street_Address__c: '12 Oak St',
      i360core__City__c: 'Round Rock',
      i360core__State_Province__c: 'TX',
      i360core__Zip_Postal_Code__c: '78664',
    });
  }

  it('checks the Lightning preset against the org: a usable connection, nothing missing or wrong', async () => {
    const test = await h.admin('/api/connections/appointment-crm/test', { method: 'POST' });
    expect(test.status).toBeLessThan(300);
    const card = (await json(await h.admin('/api/connections'))).items.find((c: Json) => c.name === 'appointment_crm');
    expect(card).toMatchObject({ status: 'connected', settings: { kind: 'salesforce', preset: 'improveit360-lightning' } });
    expect(card.detail).not.toContain('missing or wrong');
  });

  it('makes a new appointment one mapped project: name and e-mail from the Contact, address from the appointment, phone from the Account', async () => {
    expect((await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: true, owner: OWNER } })).status).toBe(200);
    const id = addAppointment('Ana', 'Lightning', 'ana.lightning@example.com');
    await readChangesNow(h, 'appointment-crm');

    const projects = [...h.service.projects.values()].filter((p) => p.name.includes(id));
    expect(projects).toHaveLength(1);
    expect(projects[0]).toMatchObject({
      name: `Ana Lightning (${id})`,
      customer: {
        name: 'Ana Lightning',
        email: 'ana.lightning@example.com',
        phone: '(512) 555-0123',
        address: { street: '12 Oak St', city: 'Round Rock', state: 'TX', zip_code: '78664' },
      },
    });
    const mapping = await waitFor(
      async () => (await json(await h.admin('/api/mappings?crm=appointment'))).items.find((m: Json) => m.appointment_id === id && m.status === 'associated'),
      15_000,
      'the mapping, associated',
    );
    expect(mapping).toMatchObject({ project_id: projects[0].id, source: 'automation' });
    // One query reads the Contact's fields on the appointment and the Account's through its lookup.
    const q = sim.instance.requests.filter((r) => r.path.endsWith('/query')).map((r) => r.query.get('q') ?? '');
    expect(q.some((soql) => soql.includes('i360core__Account__r.Phone') && soql.includes('i360core__Contact_Email__c'))).toBe(true);
  });

  it('reads the address through the Account when that path is picked instead', async () => {
    const id = addAppointment('Bo', 'Billing', 'bo@example.com');
    const picked = await h.app
      .get(SelectedAppointmentCrm)
      .getAppointment(id)
      .then((a) => a.customer);
    expect(picked).toMatchObject({ address: { street: '12 Oak St' } });
    // Set in the environment, the names are the preset's; an adapter with the Account's billing address picked:
    const adapter = h.app.get(SalesforceOrgsService).build({
      kind: 'salesforce',
      loginUrl: sim.loginUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      refreshToken: sim.refreshToken,
      instanceUrl: sim.instanceUrl,
      preset: 'improveit360-lightning',
      names: { customer_street: 'i360core__Account__r.BillingStreet', customer_city: 'i360core__Account__r.BillingCity' },
      soldValue: 'Sold',
      pushes: 'service',
    });
    expect((await adapter.getAppointment(id)).customer).toMatchObject({
      name: 'Bo Billing',
      address: { street: '9 Billing Rd', city: 'Elsewhere', state: 'TX' },
    });
  });
});
