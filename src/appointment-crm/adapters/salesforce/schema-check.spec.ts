import { OutboundError } from '../../../http/outbound-error.js';
import type { SalesforceApi } from './salesforce-api.js';
import { namesOf } from './salesforce-schema.js';
import { checkSchema, readablePaths, usableNames } from './schema-check.js';

const lookup = (name: string, to: string, relationshipName: string) => ({ name, type: 'reference', referenceTo: [to], relationshipName });
const text = (...names: string[]) => names.map((name) => ({ name, type: 'string' }));

/** A Lightning org as describe tells it: the appointment, its Account and Staff lookups, no Sale Item object. */
const ORG: Record<string, Array<Record<string, unknown>>> = {
  i360core__Appointment__c: [
    { name: 'i360core__Result__c', type: 'picklist', picklistValues: [{ value: 'Sold', active: true }] },
    { name: 'i360core__Appointment_Date_Time__c', type: 'datetime' },
    { name: 'i360core__Contact_Email__c', type: 'email' },
    { name: 'i360core__Contact_Name__c', type: 'string' },
    ...text('i360core__Street_Address__c', 'i360core__City__c', 'i360core__State_Province__c'),
    lookup('i360core__Account__c', 'Account', 'i360core__Account__r'),
    lookup('i360core__Sales_Rep_1__c', 'i360core__Staff__c', 'i360core__Sales_Rep_1__r'),
  ],
  Account: [{ name: 'Phone', type: 'phone' }, ...text('BillingStreet')],
  i360core__Staff__c: [
    { name: 'Name', type: 'string' },
    { name: 'i360core__Email__c', type: 'email' },
  ],
  i360core__Sale__c: [
    lookup('i360core__Appointment__c', 'i360core__Appointment__c', 'i360core__Appointment__r'),
    { name: 'i360core__Sold_Price__c', type: 'currency' },
  ],
};

function org(): { api: SalesforceApi; described: string[] } {
  const described: string[] = [];
  const api = {
    request: ({ path }: { path: string }) => {
      if (path === '/sobjects') return Promise.resolve({ data: { sobjects: Object.keys(ORG).map((name) => ({ name, label: name })) } });
      const object = /^\/sobjects\/(\w+)\/describe$/.exec(path)?.[1] ?? '';
      described.push(object);
      if (!ORG[object]) return Promise.reject(new OutboundError('appointment_crm', 'GET /sobjects/:object/describe', 'rejected', 404, 'NOT_FOUND'));
      return Promise.resolve({ data: { fields: ORG[object] } });
    },
  } as unknown as SalesforceApi;
  return { api, described };
}

describe('checkSchema', () => {
  it('follows a path through its lookup, turns off an optional need the org lacks, and stays usable', async () => {
    const { api } = org();
    const report = await checkSchema(api, namesOf('improveit360-lightning', {}), 'Sold', 'service', 'improveit360-lightning');
    const need = (name: string) => report.needs.find((n) => n.need === name)!;
    expect(need('customer_phone')).toMatchObject({ status: 'ok', name: 'i360core__Account__r.Phone' });
    expect(need('customer_zip')).toMatchObject({ status: 'absent', detail: expect.stringContaining('not in this org') });
    expect(need('customer_email').lookups).toContainEqual(expect.objectContaining({ relationshipName: 'i360core__Account__r', referenceTo: 'Account' }));
    expect(report.ok).toBe(true);
    expect(usableNames(report, namesOf('improveit360-lightning', {})).customer_zip).toBe('');
  });

  it('refuses what crm-sync cannot go without: an unconfirmed Sale Item the org lacks, a written field through a lookup', async () => {
    const { api } = org();
    const names = namesOf('improveit360-lightning', { sale_total: 'i360core__Appointment__r.i360core__City__c' });
    const report = await checkSchema(api, names, 'Sold', 'crm-sync', 'improveit360-lightning');
    const need = (name: string) => report.needs.find((n) => n.need === name)!;
    expect(need('sale_item')).toMatchObject({ status: 'missing', confirmed: false, detail: expect.stringContaining('unconfirmed') });
    expect(need('sale_total')).toMatchObject({ status: 'wrong_type', detail: expect.stringContaining("must be i360core__Sale__c's own") });
    expect(report.ok).toBe(false);
  });

  it('reads the paths the adapter queries, each object described once', async () => {
    const { api, described } = org();
    const paths = await readablePaths(api, namesOf('improveit360-lightning', { customer_street: 'i360core__Account__r.BillingStreet' }));
    expect(paths.names).toMatchObject({
      customer_street: 'i360core__Account__r.BillingStreet',
      customer_phone: 'i360core__Account__r.Phone',
      customer_zip: '',
    });
    expect(paths.types.appointment_start).toBe('datetime');
    expect(described.filter((o) => o === 'Account')).toHaveLength(1);
  });
});
