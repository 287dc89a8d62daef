import { OutboundError } from '../../../http/outbound-error.js';
import type { SalesforceApi } from './salesforce-api.js';
import { SalesforceAppointmentCrm } from './salesforce-appointment-crm.js';
import { namesOf } from './salesforce-schema.js';

/** What describe answers for each object the paths go through: a classic org with a job number of its own. */
const DESCRIBE: Record<string, Array<Record<string, unknown>>> = {
  i360__Appointment__c: [
    { name: 'Id', type: 'id' },
    { name: 'i360__Result__c', type: 'picklist' },
    { name: 'i360__Job_Number__c', type: 'string' },
    { name: 'i360__Computed_Start_DateTime__c', type: 'datetime' },
    { name: 'i360__Start_Time__c', type: 'string' },
    { name: 'i360__City__c', type: 'string' },
    { name: 'i360__Prospect__c', type: 'reference', referenceTo: ['i360__Prospect__c'], relationshipName: 'i360__Prospect__r' },
    { name: 'i360__Sales_Rep_1__c', type: 'reference', referenceTo: ['i360__Staff__c'], relationshipName: 'i360__Sales_Rep_1__r' },
  ],
  i360__Prospect__c: ['i360__Primary_First_Name__c', 'i360__Primary_Last_Name__c', 'i360__Primary_Email__c', 'i360__Phone_1__c'].map((name) => ({
    name,
    type: 'string',
  })),
  i360__Staff__c: [
    { name: 'Name', type: 'string' },
    { name: 'i360__Email__c', type: 'email' },
  ],
};

/** The adapter's SOQL, against a stub API that records each query, answers the rows given and describes DESCRIBE's objects. */
function adapter(rows: Array<Record<string, unknown>> = []) {
  const queries: string[] = [];
  const api = {
    query: (_endpoint: string, soql: string) => (queries.push(soql), Promise.resolve(rows)),
    request: ({ path }: { path: string }) => {
      const fields = DESCRIBE[/^\/sobjects\/(\w+)\/describe$/.exec(path)?.[1] ?? ''];
      if (!fields) return Promise.reject(new OutboundError('appointment_crm', 'GET /sobjects/:object/describe', 'rejected', 404, 'NOT_FOUND'));
      return Promise.resolve({ data: { fields } });
    },
    session: () => Promise.resolve({ accessToken: 'token', instanceUrl: 'https://acme.my.salesforce.com', identityUrl: null }),
  } as unknown as SalesforceApi;
  const names = namesOf('improveit360-classic', { appointment_job_number: 'i360__Job_Number__c' });
  return { crm: new SalesforceAppointmentCrm(api, { names, soldValue: 'Sold' }), queries };
}

const row = {
  Id: 'a0A000000000001AAA',
  Name: 'A-0001',
  SystemModstamp: '2026-11-25T09:12:44.000+0000',
  i360__Result__c: 'Scheduled',
  i360__Job_Number__c: 'J-2041',
  i360__City__c: 'Austin',
  i360__Prospect__r: {
    i360__Primary_First_Name__c: 'Ana',
    i360__Primary_Last_Name__c: 'Ruiz',
    i360__Primary_Email__c: 'ana@example.com',
    i360__Phone_1__c: '(512) 555-0100',
  },
  i360__Sales_Rep_1__r: { Name: 'Sam Ortiz', i360__Email__c: 'sam@example.com' },
};

describe('SalesforceAppointmentCrm', () => {
  it('reads changed appointments with their customer and sales rep in one query, keyset on SystemModstamp and Id', async () => {
    const { crm, queries } = adapter([row]);
    const page = await crm.listChangedAppointments(new Date('2026-11-25T00:00:00Z'), null, 1);
    expect(queries[0]).toContain('i360__Prospect__r.i360__Primary_Email__c');
    expect(queries[0]).toContain('i360__Sales_Rep_1__r.i360__Email__c');
    expect(queries[0]).toContain('WHERE SystemModstamp >= 2026-11-25T00:00:00Z ORDER BY SystemModstamp, Id LIMIT 1');
    expect(page.items[0]).toMatchObject({
      id: 'a0A000000000001AAA',
      status: 'Scheduled',
      job_number: 'J-2041',
      updated_at: '2026-11-25T09:12:44.000Z',
      customer: { name: 'Ana Ruiz', email: 'ana@example.com', phone: '(512) 555-0100', address: { city: 'Austin' } },
      sales_rep: { name: 'Sam Ortiz', email: 'sam@example.com' },
      web_url: 'https://acme.my.salesforce.com/lightning/r/i360__Appointment__c/a0A000000000001AAA/view',
    });
    expect(page.next_cursor).not.toBeNull();
    // The street, state and ZIP this org lacks (no field in describe) are left out of the query, not asked for.
    expect(queries[0]).not.toContain('i360__Address__c');

    await crm.listChangedAppointments(null, page.next_cursor, 1);
    expect(queries[1]).toContain(`WHERE (SystemModstamp > 2026-11-25T09:12:44Z OR (SystemModstamp = 2026-11-25T09:12:44Z AND Id > 'a0A000000000001AAA'))`);
  });

  it('ends the listing on a short page', async () => {
    const { crm } = adapter([row]);
    expect((await crm.listChangedAppointments(null, null, 200)).next_cursor).toBeNull();
  });

  it('escapes every searched value: quotes and backslashes cannot leave the literal', async () => {
    const { crm, queries } = adapter();
    await crm.searchAppointments({ q: `O'Brien\\` });
    await crm.searchAppointments({ email: `x'@y.com` });
    await crm.searchAppointments({ job_number: `J\\'1` });
    expect(queries[0]).toContain(`i360__Prospect__r.i360__Primary_Last_Name__c LIKE '%O\\'Brien\\\\%'`);
    expect(queries[1]).toContain(`i360__Prospect__r.i360__Primary_Email__c = 'x\\'@y.com'`);
    expect(queries[2]).toContain(`i360__Job_Number__c = 'J\\\\\\'1'`);
  });

  it('needs every word of a name somewhere: first and last name are two fields', async () => {
    const { crm, queries } = adapter();
    await crm.searchAppointments({ q: 'Ana Ruiz' });
    expect(queries[0]).toMatch(/\(.*LIKE '%Ana%'.*\) AND \(.*LIKE '%Ruiz%'.*\)/);
  });

  it('finds a phone by its last 10 digits whatever the formatting, and compares them exactly', async () => {
    const other = { ...row, Id: 'a0A000000000002AAA', i360__Prospect__r: { ...row.i360__Prospect__r, i360__Phone_1__c: '9512 555 0100 7' } };
    const withExtension = { ...row, Id: 'a0A000000000003AAA', i360__Prospect__r: { ...row.i360__Prospect__r, i360__Phone_1__c: '512-555-0100 ext. 12' } };
    const { crm, queries } = adapter([row, other, withExtension]);
    const found = await crm.searchAppointments({ phone: '+1 512.555.0100' });
    expect(queries[0]).toContain(`i360__Prospect__r.i360__Phone_1__c LIKE '%512%555%0100%'`);
    expect(found.map((a) => a.id)).toEqual(['a0A000000000001AAA', 'a0A000000000003AAA']);
  });

  it('reads one appointment with the same paths, lookups included, by its id', async () => {
    const { crm, queries } = adapter([row]);
    const one = await crm.getAppointment('a0A000000000001AAA');
    expect(queries[0]).toContain('i360__Sales_Rep_1__r.i360__Email__c');
    expect(queries[0]).not.toMatch(/i360__(Address|State|Zip)__c/);
    expect(queries[0]).toContain("WHERE Id = 'a0A000000000001AAA'");
    expect(one).toMatchObject({ id: 'a0A000000000001AAA', customer: { name: 'Ana Ruiz', email: 'ana@example.com' }, job_number: 'J-2041' });
  });
});
