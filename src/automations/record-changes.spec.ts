import { RECORD_CRM_DEFAULTS, type RecordCrmAutomation } from '../crm-settings/automation-settings.js';
import type { ZohoRecord } from '../record-crm/record-crm.js';
import { contactIdsOf, projectOfRecord, recordFields, recordQualifies } from './record-changes.js';

const settings = (changes: Partial<RecordCrmAutomation> = {}): RecordCrmAutomation => ({ ...RECORD_CRM_DEFAULTS, ...changes });
const DEAL = '4150868000005277036';
const CONTACT = '4150868000005277999';

describe('Zoho records for the automations', () => {
  it('asks for the name, customer, owner, time, and the qualifying and job number fields', () => {
    expect(recordFields(settings({ field: 'Stage', match_fields: { job_number: 'Job_Number' } }))).toEqual([
      'Deal_Name',
      'Contact_Name',
      'Owner',
      'Modified_Time',
      'Stage',
      'Job_Number',
    ]);
    expect(recordFields(settings({ module: 'Leads' }))).toContain('Zip_Code');
  });

  it('qualifies on the field holding one of the values, a picklist given as text or { name }', () => {
    const s = settings({ field: 'Stage', values: ['Closed Won'] });
    expect(recordQualifies({ id: DEAL, Stage: 'closed won ' }, s)).toBe(true);
    expect(recordQualifies({ id: DEAL, Stage: { name: 'Closed Won' } }, s)).toBe(true);
    expect(recordQualifies({ id: DEAL, Stage: 'Negotiation' }, s)).toBe(false);
    expect(recordQualifies({ id: DEAL }, s)).toBe(false);
    expect(recordQualifies({ id: DEAL }, settings())).toBe(true);
  });

  it("makes a Deal's project from its Contact, or from the lookup's name when the Contact was not read", () => {
    const deal: ZohoRecord = {
      id: DEAL,
      Deal_Name: 'Roof',
      Contact_Name: { id: CONTACT, name: 'Carla C' },
      Owner: { id: '1', name: 'Sam', email: 's@example.com' },
    };
    expect(contactIdsOf([deal, deal, { id: '1' }])).toEqual([CONTACT]);
    const contact: ZohoRecord = { id: CONTACT, Full_Name: 'Carla Contact', Email: 'c@example.com', Mailing_City: 'Springfield' };
    expect(projectOfRecord('Deals', deal, settings(), new Map([[CONTACT, contact]]))).toEqual({
      record: { crm: 'record', module: 'Deals', id: DEAL },
      name: `Carla Contact (${DEAL})`,
      customer: { name: 'Carla Contact', email: 'c@example.com', address: { city: 'Springfield' } },
      work_site_address: { city: 'Springfield' },
      sales_rep: { name: 'Sam', email: 's@example.com' },
    });
    expect(projectOfRecord('Deals', deal, settings(), new Map()).name).toBe(`Carla C (${DEAL})`);
    expect(projectOfRecord('Deals', { id: DEAL }, settings(), new Map()).name).toBe(`Deal (${DEAL})`);
  });
});
