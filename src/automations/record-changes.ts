import type { RecordCrmAutomation } from '../crm-settings/automation-settings.js';
import type { CreateProjectPayload } from '../domain/actions.js';
import type { ZohoRecord } from '../record-crm/record-crm.js';
import type { Address, Customer, RecordModule, SalesRep } from '../service-api/service-api.types.js';
import { present } from './present.js';
import { projectName } from './project-name.js';

/** The fields read of a customer (a Contact) and of each module's records: what a project is made of. */
export const CONTACT_FIELDS = ['Full_Name', 'First_Name', 'Last_Name', 'Email', 'Phone', 'Mailing_Street', 'Mailing_City', 'Mailing_State', 'Mailing_Zip'];
const PERSON_FIELDS: Record<'Leads' | 'Contacts', string[]> = {
  Leads: ['Full_Name', 'First_Name', 'Last_Name', 'Email', 'Phone', 'Street', 'City', 'State', 'Zip_Code'],
  Contacts: CONTACT_FIELDS,
};
const NAME_FIELD: Record<'Deals' | 'Quotes', string> = { Deals: 'Deal_Name', Quotes: 'Subject' };
const SINGULAR: Record<RecordModule, string> = { Deals: 'Deal', Quotes: 'Quote', Leads: 'Lead', Contacts: 'Contact' };

/** Whether a module's records name their customer by the `Contact_Name` lookup (else the record is the person). */
export const hasContactLookup = (module: RecordModule): module is 'Deals' | 'Quotes' => module === 'Deals' || module === 'Quotes';

/** The fields Get Records is asked for, with the qualifying field and the job number's when set. */
export function recordFields(settings: RecordCrmAutomation): string[] {
  const own = hasContactLookup(settings.module) ? [NAME_FIELD[settings.module], 'Contact_Name'] : PERSON_FIELDS[settings.module];
  const extra = [settings.field, settings.match_fields.job_number].filter((f): f is string => !!f);
  return [...new Set([...own, 'Owner', 'Modified_Time', ...extra])];
}

/** Whether the record's field holds one of the values (case and spaces aside); no field, or no values: every record. */
export function recordQualifies(record: ZohoRecord, settings: RecordCrmAutomation): boolean {
  if (!settings.field || settings.values.length === 0) return true;
  const value = textOf(record[settings.field])?.trim().toLowerCase();
  return value !== undefined && settings.values.some((v) => v.trim().toLowerCase() === value);
}

/** The Contact ids a page's records name as their customer. */
export function contactIdsOf(records: ZohoRecord[]): string[] {
  return [...new Set(records.map((r) => lookupOf(r.Contact_Name)?.id).filter((id): id is string => !!id))];
}

/**
 * The project a record gets: named after its customer (the Contact it names, or the Lead or Contact itself), else
 * the record's own name, and its id; the customer's address is the work site, the record's owner the sales rep.
 */
export function projectOfRecord(
  module: RecordModule,
  record: ZohoRecord,
  settings: RecordCrmAutomation,
  contacts: Map<string, ZohoRecord>,
): CreateProjectPayload {
  const lookup = lookupOf(record.Contact_Name);
  const person = hasContactLookup(module) ? (lookup ? contacts.get(lookup.id) : undefined) : record;
  const customer = person ? customerOf(person, module === 'Leads' && person === record) : undefined;
  const customerName = customer?.name ?? lookup?.name;
  const recordName = hasContactLookup(module) ? textOf(record[NAME_FIELD[module]]) : undefined;
  const owner = lookupOf(record.Owner);
  const salesRep = owner ? present<SalesRep>({ name: owner.name, email: textOf((record.Owner as Record<string, unknown>).email) }) : undefined;
  const jobNumber = settings.match_fields.job_number ? textOf(record[settings.match_fields.job_number]) : undefined;
  return present<CreateProjectPayload>({
    record: { crm: 'record', module, id: record.id },
    name: projectName(customerName ?? recordName, record.id, SINGULAR[module]),
    customer: customer ?? (customerName ? { name: customerName } : undefined),
    work_site_address: customer?.address,
    sales_rep: salesRep,
    job_number: jobNumber,
  });
}

function customerOf(person: ZohoRecord, isLead: boolean): Customer {
  const name = textOf(person.Full_Name) ?? ([textOf(person.First_Name), textOf(person.Last_Name)].filter(Boolean).join(' ') || undefined);
  const address = isLead
    ? present<Address>({ street: textOf(person.Street), city: textOf(person.City), state: textOf(person.State), zip_code: textOf(person.Zip_Code) })
    : present<Address>({
        street: textOf(person.Mailing_Street),
        city: textOf(person.Mailing_City),
        state: textOf(person.Mailing_State),
        zip_code: textOf(person.Mailing_Zip),
      });
  return present<Customer>({ name, email: textOf(person.Email), phone: textOf(person.Phone), address });
}

/** A lookup field (`{ id, name }`) as Zoho sends it; anything else is none. */
function lookupOf(value: unknown): { id: string; name?: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, name } = value as Record<string, unknown>;
  return typeof id === 'string' && id !== '' ? { id, name: textOf(name) } : undefined;
}

/** A field's text: a string, a number's digits, or a picklist or lookup's name. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return textOf((value as Record<string, unknown>).name);
  return undefined;
}
