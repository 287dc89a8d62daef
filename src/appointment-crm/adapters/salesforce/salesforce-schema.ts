/**
 * What the Salesforce adapter needs of the org, and where the improveit 360 presets say it is. Each need of the
 * appointment is a field **path** from the appointment: its own field (`i360__Address__c`) or one reached through
 * lookups (`i360__Prospect__r.i360__Primary_Email__c`, `i360core__Account__r.BillingStreet`), as SOQL writes a
 * child-to-parent relationship (SOQL and SOSL Reference, "Relationship Queries",
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships.htm).
 * The sale's needs are fields of the sale and sale item objects, which crm-sync writes.
 *
 * A preset only fills the defaults; every path is checked against the org's `describe` (schema-check.ts). Each
 * preset name carries its public source and whether that source confirms it (docs/appointment-crm-salesforce.md's
 * table is this data); an unconfirmed one is checked at connect and reported, never assumed.
 */

export const SALESFORCE_PRESETS = ['improveit360-classic', 'improveit360-lightning'] as const;
export type SalesforcePreset = (typeof SALESFORCE_PRESETS)[number];

export const WHO_PUSHES = ['service', 'crm-sync'] as const;
export type WhoPushes = (typeof WHO_PUSHES)[number];

/** A need: an object of the org, or a field path of one (its object named by another need). */
export interface Need {
  name: string;
  label: string;
  /** `object`, or the need naming the object this field (path) starts from. */
  of: 'object' | 'appointment' | 'sale' | 'sale_item';
  /** Field types (describe's `type`) that fit the path's last field; empty for objects. */
  types: readonly string[];
  /** Needed only when crm-sync pushes sales itself. */
  forSales?: boolean;
  /** May be left empty, or be missing in the org: it is then not read ("not in this org"). */
  optional?: boolean;
  /** The field is written, so it must be the object's own (no lookups on the way). */
  own?: boolean;
}

const TEXT = ['string', 'textarea', 'email', 'phone', 'picklist', 'url', 'id', 'combobox'];
const NUMBER = ['double', 'currency', 'int', 'percent', 'long'];

export const NEEDS: readonly Need[] = [
  { name: 'appointment', label: 'Appointment', of: 'object', types: [] },
  { name: 'appointment_result', label: 'Result (set to Sold)', of: 'appointment', types: ['picklist', 'string'], own: true },
  { name: 'appointment_job_number', label: 'Job number', of: 'appointment', types: TEXT, optional: true },
  { name: 'appointment_start', label: 'Starts (date and time, or the date)', of: 'appointment', types: ['datetime', 'date'], optional: true },
  { name: 'appointment_start_time', label: 'Start time (when the start is a date)', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_name', label: 'Customer name (whole)', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_first_name', label: 'Customer first name', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_last_name', label: 'Customer last name', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_email', label: 'Customer e-mail', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_phone', label: 'Customer phone', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_street', label: 'Street', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_city', label: 'City', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_state', label: 'State', of: 'appointment', types: TEXT, optional: true },
  { name: 'customer_zip', label: 'ZIP', of: 'appointment', types: TEXT, optional: true },
  { name: 'sales_rep_name', label: 'Sales rep name', of: 'appointment', types: TEXT, optional: true },
  { name: 'sales_rep_email', label: 'Sales rep e-mail (owner)', of: 'appointment', types: TEXT, optional: true },
  { name: 'sale', label: 'Sale', of: 'object', types: [], forSales: true },
  { name: 'sale_appointment', label: 'Sale → appointment (lookup)', of: 'sale', types: ['reference'], forSales: true, own: true },
  { name: 'sale_total', label: 'Sale total', of: 'sale', types: NUMBER, forSales: true, own: true },
  { name: 'sale_sold_on', label: 'Sale date', of: 'sale', types: ['date', 'datetime'], forSales: true, optional: true, own: true },
  { name: 'sale_item', label: 'Sale item', of: 'object', types: [], forSales: true },
  { name: 'sale_item_sale', label: 'Sale item → sale (lookup)', of: 'sale_item', types: ['reference'], forSales: true, own: true },
  { name: 'sale_item_product', label: 'Sale item → product (lookup)', of: 'sale_item', types: ['reference'], forSales: true, optional: true, own: true },
  { name: 'sale_item_quantity', label: 'Sale item quantity', of: 'sale_item', types: NUMBER, forSales: true, own: true },
  { name: 'sale_item_price', label: 'Sale item price', of: 'sale_item', types: NUMBER, forSales: true, optional: true, own: true },
  { name: 'sale_item_total', label: 'Sale item total', of: 'sale_item', types: NUMBER, forSales: true, optional: true, own: true },
  { name: 'sale_item_description', label: 'Sale item description', of: 'sale_item', types: TEXT, forSales: true, optional: true, own: true },
  { name: 'product', label: 'Product', of: 'object', types: [], forSales: true, optional: true },
];

export type NeedName = string;
/** Every need's API name or field path (an empty string: not used). */
export type SchemaNames = Record<NeedName, string>;

/** A preset's name for a need, where it comes from, and whether that source shows it. */
export interface PresetName {
  name: string;
  source: string;
  confirmed: boolean;
}

const OCC_CLASSIC =
  'One Click Contractor, improveit360 Classic integration: jobs (help.oneclickcontractor.com/knowledge/improveit360-classic-integration-jobs)';
const OCC_CLASSIC_MAP = 'One Click Contractor, improveit360 data mapping (help.oneclickcontractor.com/knowledge/improveit360-integration-data-mapping)';
const OCC_LIGHTNING =
  'One Click Contractor, improveit360 Lightning integration: jobs (help.oneclickcontractor.com/knowledge/improveit360-lightning-integration-jobs)';
const PUBLIC_QUERY = 'public code querying i360__Appointment__c (WHERE i360__Start__c >= <date literal>, with i360__Start_Time__c)';
const PUBLIC_EXPORT =
  "a public export of the appointment object's ~90 fields (i360__Start__c, i360__Start_Time__c, i360__Computed_Start_DateTime__c; no job number)";
const PUBLIC_SALE = 'public reports over the Sale object (i360__Sold_Price__c, i360__Sold_On__c)';
const I360_HELP = 'improveit 360 Lightning help, Glossary (Account is the primary object; Account, Contact native to Salesforce)';
const SALESFORCE = 'Salesforce Object Reference (a standard field)';
const GUESS = 'a guess: not in any public source';

const c = (name: string, source: string): PresetName => ({ name, source, confirmed: true });
const u = (name: string, source = GUESS): PresetName => ({ name, source, confirmed: false });
const none: PresetName = { name: '', source: 'not in the public evidence: pick one if the org has it', confirmed: false };

/** improveit 360 classic (namespace `i360__`): the customer on the Prospect, the address on the appointment. */
const CLASSIC: Record<NeedName, PresetName> = {
  appointment: c('i360__Appointment__c', OCC_CLASSIC),
  appointment_result: c('i360__Result__c', 'One Click Contractor, improveit 360 Classic (picklist_values of i360__Appointment__c.i360__Result__c)'),
  appointment_job_number: none,
  // i360__Start__c is a date (public code filters it with a date literal, which SOQL allows only on a date field) and
  // i360__Start_Time__c its time as text: the computed date-time says the same in one field.
  appointment_start: c('i360__Computed_Start_DateTime__c', `${OCC_CLASSIC_MAP} (start_time); ${PUBLIC_EXPORT}`),
  appointment_start_time: c('i360__Start_Time__c', `${PUBLIC_QUERY}; read only when the start picked is a date (i360__Start__c)`),
  customer_name: none,
  customer_first_name: c('i360__Prospect__r.i360__Primary_First_Name__c', OCC_CLASSIC),
  customer_last_name: c('i360__Prospect__r.i360__Primary_Last_Name__c', OCC_CLASSIC),
  customer_email: c('i360__Prospect__r.i360__Primary_Email__c', OCC_CLASSIC),
  customer_phone: c('i360__Prospect__r.i360__Phone_1__c', OCC_CLASSIC),
  customer_street: c('i360__Address__c', `${OCC_CLASSIC}; ${PUBLIC_QUERY}`),
  customer_city: c('i360__City__c', `${OCC_CLASSIC}; ${PUBLIC_QUERY}`),
  customer_state: c('i360__State__c', `${OCC_CLASSIC}; ${PUBLIC_QUERY}`),
  customer_zip: c('i360__Zip__c', `${OCC_CLASSIC}; ${PUBLIC_QUERY}`),
  sales_rep_name: c('i360__Sales_Rep_1__r.Name', `${OCC_CLASSIC} (i360__Sales_Rep_1__c; SELECT Id, Name, i360__Email__c FROM i360__Staff__c)`),
  sales_rep_email: c('i360__Sales_Rep_1__r.i360__Email__c', `${OCC_CLASSIC} (SELECT Id, Name, i360__Email__c FROM i360__Staff__c)`),
  sale: c('i360__Sale__c', PUBLIC_SALE),
  sale_appointment: u('i360__Appointment__c'),
  sale_total: c('i360__Sold_Price__c', PUBLIC_SALE),
  sale_sold_on: c('i360__Sold_On__c', PUBLIC_SALE),
  sale_item: u('i360__Sale_Item__c'),
  sale_item_sale: u('i360__Sale__c'),
  sale_item_product: u('i360__Product__c'),
  sale_item_quantity: u('i360__Quantity__c'),
  sale_item_price: u('i360__Price__c'),
  sale_item_total: none,
  sale_item_description: u('i360__Description__c'),
  product: u('i360__Product__c'),
};

/**
 * improveit 360 Lightning (namespace `i360core__`): the customer in standard Account and Contact, the appointment
 * carrying the Contact's name and e-mail and the address itself, and a lookup to its Account.
 */
const LIGHTNING: Record<NeedName, PresetName> = {
  appointment: u('i360core__Appointment__c', `${OCC_LIGHTNING}: its fields are i360core__; the object's name is inferred`),
  appointment_result: u('i360core__Result__c', 'the classic name under the Lightning namespace'),
  appointment_job_number: none,
  appointment_start: c('i360core__Appointment_Date_Time__c', OCC_LIGHTNING),
  appointment_start_time: none,
  customer_name: c('i360core__Contact_Name__c', OCC_LIGHTNING),
  customer_first_name: none,
  customer_last_name: none,
  customer_email: c('i360core__Contact_Email__c', OCC_LIGHTNING),
  customer_phone: c('i360core__Account__r.Phone', `${OCC_LIGHTNING} (i360core__Account__c); ${SALESFORCE}, Account.Phone`),
  customer_street: c('i360core__Street_Address__c', OCC_LIGHTNING),
  customer_city: c('i360core__City__c', OCC_LIGHTNING),
  customer_state: c('i360core__State_Province__c', OCC_LIGHTNING),
  customer_zip: c('i360core__Zip_Postal_Code__c', OCC_LIGHTNING),
  sales_rep_name: c(
    'i360core__Sales_Rep_1__r.Name',
    `${OCC_LIGHTNING} (i360core__Sales_Rep_1__c; SELECT Id, Name, i360core__Email__c FROM i360core__Staff__c)`,
  ),
  sales_rep_email: c(
    'i360core__Sales_Rep_1__r.i360core__Email__c',
    'One Click Contractor, improveit360 Lightning FAQ (SELECT Id, Name, i360core__Email__c FROM i360core__Staff__c)',
  ),
  sale: u('i360core__Sale__c', `${I360_HELP} (a Sale object; its API name is inferred)`),
  sale_appointment: u('i360core__Appointment__c'),
  sale_total: u('i360core__Sold_Price__c', 'the classic name under the Lightning namespace'),
  sale_sold_on: u('i360core__Sold_On__c', 'the classic name under the Lightning namespace'),
  sale_item: u('i360core__Sale_Item__c', `${I360_HELP} (Sale Items; the API name is a guess)`),
  sale_item_sale: u('i360core__Sale__c'),
  sale_item_product: u('i360core__Product__c'),
  sale_item_quantity: u('i360core__Quantity__c'),
  sale_item_price: u('i360core__Price__c'),
  sale_item_total: none,
  sale_item_description: u('i360core__Description__c'),
  product: u('i360core__Product__c'),
};

export const PRESETS: Record<SalesforcePreset, Record<NeedName, PresetName>> = {
  'improveit360-classic': CLASSIC,
  'improveit360-lightning': LIGHTNING,
};

export const PRESET_NAMES: Record<SalesforcePreset, SchemaNames> = {
  'improveit360-classic': Object.fromEntries(Object.entries(CLASSIC).map(([need, p]) => [need, p.name])),
  'improveit360-lightning': Object.fromEntries(Object.entries(LIGHTNING).map(([need, p]) => [need, p.name])),
};

/** The Sold value of the result pick list unless the settings name another. */
export const DEFAULT_SOLD_VALUE = 'Sold';

/** The names in effect: the preset's, each replaced by a setting given for it ('' leaves an optional need unused). */
export function namesOf(preset: SalesforcePreset, overrides: Partial<SchemaNames>): SchemaNames {
  const names = { ...PRESET_NAMES[preset] };
  for (const need of NEEDS) if (typeof overrides[need.name] === 'string') names[need.name] = overrides[need.name]!;
  return names;
}

/** Whether a need's name in effect is the preset's and the preset's source confirms it; a name picked counts as checked by whoever picked it. */
export function confirmedName(preset: SalesforcePreset, need: string, name: string): boolean {
  const given = PRESETS[preset][need];
  return !given || given.name !== name || given.confirmed;
}

export const needNamed = (name: string): Need | undefined => NEEDS.find((need) => need.name === name);
