/**
 * What the Salesforce adapter needs of the org, and where the improveit 360 presets say it is. Every name is a
 * setting: a preset only fills the defaults, and every one is checked against the org's `describe` (schema-check.ts)
 * before it is saved. improveit 360 publishes its classic object names (namespace `i360__`) but not all of them: the
 * Sale Item object and a few field names below are guesses, which is why the org's metadata is read, never assumed.
 */

export const SALESFORCE_PRESETS = ['improveit360-classic', 'improveit360-lightning'] as const;
export type SalesforcePreset = (typeof SALESFORCE_PRESETS)[number];

export const WHO_PUSHES = ['service', 'crm-sync'] as const;
export type WhoPushes = (typeof WHO_PUSHES)[number];

/** A need: an object of the org, or a field of one (its object named by another need). */
export interface Need {
  name: string;
  label: string;
  /** `object`, or the need naming the object this field belongs to. */
  of: 'object' | string;
  /** Field types (describe's `type`) that fit; empty for objects. */
  types: readonly string[];
  /** Needed only when crm-sync pushes sales itself. */
  forSales?: boolean;
  /** May be left empty (the field is then not read). */
  optional?: boolean;
}

const TEXT = ['string', 'textarea', 'email', 'phone', 'picklist', 'url', 'id', 'combobox'];
const NUMBER = ['double', 'currency', 'int', 'percent', 'long'];

export const NEEDS: readonly Need[] = [
  { name: 'appointment', label: 'Appointment', of: 'object', types: [] },
  { name: 'appointment_result', label: 'Result (set to Sold)', of: 'appointment', types: ['picklist', 'string'] },
  { name: 'appointment_customer', label: 'Customer (lookup)', of: 'appointment', types: ['reference'] },
  { name: 'appointment_sales_rep', label: 'Sales rep (lookup)', of: 'appointment', types: ['reference'], optional: true },
  { name: 'appointment_job_number', label: 'Job number', of: 'appointment', types: TEXT, optional: true },
  { name: 'appointment_start', label: 'Starts at', of: 'appointment', types: ['datetime'], optional: true },
  { name: 'customer', label: 'Customer', of: 'object', types: [] },
  { name: 'customer_first_name', label: 'Customer first name', of: 'customer', types: TEXT },
  { name: 'customer_last_name', label: 'Customer last name', of: 'customer', types: TEXT },
  { name: 'customer_email', label: 'Customer e-mail', of: 'customer', types: TEXT },
  { name: 'customer_phone', label: 'Customer phone', of: 'customer', types: TEXT },
  { name: 'customer_street', label: 'Customer street', of: 'customer', types: TEXT, optional: true },
  { name: 'customer_city', label: 'Customer city', of: 'customer', types: TEXT, optional: true },
  { name: 'customer_state', label: 'Customer state', of: 'customer', types: TEXT, optional: true },
  { name: 'customer_zip', label: 'Customer ZIP', of: 'customer', types: TEXT, optional: true },
  { name: 'sales_rep', label: 'Sales rep', of: 'object', types: [], optional: true },
  { name: 'sales_rep_name', label: 'Sales rep name', of: 'sales_rep', types: TEXT, optional: true },
  { name: 'sales_rep_email', label: 'Sales rep e-mail', of: 'sales_rep', types: TEXT, optional: true },
  { name: 'sale', label: 'Sale', of: 'object', types: [], forSales: true },
  { name: 'sale_appointment', label: 'Sale → appointment (lookup)', of: 'sale', types: ['reference'], forSales: true },
  { name: 'sale_total', label: 'Sale total', of: 'sale', types: NUMBER, forSales: true },
  { name: 'sale_item', label: 'Sale item', of: 'object', types: [], forSales: true },
  { name: 'sale_item_sale', label: 'Sale item → sale (lookup)', of: 'sale_item', types: ['reference'], forSales: true },
  { name: 'sale_item_product', label: 'Sale item → product (lookup)', of: 'sale_item', types: ['reference'], forSales: true, optional: true },
  { name: 'sale_item_quantity', label: 'Sale item quantity', of: 'sale_item', types: NUMBER, forSales: true },
  { name: 'sale_item_price', label: 'Sale item price', of: 'sale_item', types: NUMBER, forSales: true, optional: true },
  { name: 'sale_item_total', label: 'Sale item total', of: 'sale_item', types: NUMBER, forSales: true, optional: true },
  { name: 'sale_item_description', label: 'Sale item description', of: 'sale_item', types: TEXT, forSales: true, optional: true },
  { name: 'product', label: 'Product', of: 'object', types: [], forSales: true, optional: true },
];

export type NeedName = string;
/** Every need's API name (an empty string: not used). */
export type SchemaNames = Record<NeedName, string>;

/** The classic package's names; the Lightning edition swaps the namespace `i360__` for `i360core__`. */
const CLASSIC: SchemaNames = {
  appointment: 'i360__Appointment__c',
  appointment_result: 'i360__Result__c',
  appointment_customer: 'i360__Prospect__c',
  appointment_sales_rep: 'i360__Sales_Rep_1__c',
  appointment_job_number: 'i360__Job_Number__c',
  appointment_start: 'i360__Start__c',
  customer: 'i360__Prospect__c',
  customer_first_name: 'i360__Primary_First_Name__c',
  customer_last_name: 'i360__Primary_Last_Name__c',
  customer_email: 'i360__Primary_Email__c',
  customer_phone: 'i360__Phone_1__c',
  customer_street: 'i360__Address__c',
  customer_city: 'i360__City__c',
  customer_state: 'i360__State__c',
  customer_zip: 'i360__Zip__c',
  sales_rep: 'i360__Staff__c',
  sales_rep_name: 'Name',
  sales_rep_email: 'i360__Email__c',
  sale: 'i360__Sale__c',
  sale_appointment: 'i360__Appointment__c',
  sale_total: 'i360__Amount__c',
  sale_item: 'i360__Sale_Item__c',
  sale_item_sale: 'i360__Sale__c',
  sale_item_product: 'i360__Product__c',
  sale_item_quantity: 'i360__Quantity__c',
  sale_item_price: 'i360__Price__c',
  // Not in every org: left unused when the org has no such field (picked on the Connections screen).
  sale_item_total: '',
  sale_item_description: 'i360__Description__c',
  product: 'i360__Product__c',
};

export const PRESET_NAMES: Record<SalesforcePreset, SchemaNames> = {
  'improveit360-classic': CLASSIC,
  'improveit360-lightning': Object.fromEntries(Object.entries(CLASSIC).map(([need, name]) => [need, name.replace(/^i360__/, 'i360core__')])),
};

/** The Sold value of the result pick list unless the settings name another. */
export const DEFAULT_SOLD_VALUE = 'Sold';

/** The names in effect: the preset's, each replaced by a setting given for it ('' leaves an optional need unused). */
export function namesOf(preset: SalesforcePreset, overrides: Partial<SchemaNames>): SchemaNames {
  const names = { ...PRESET_NAMES[preset] };
  for (const need of NEEDS) if (typeof overrides[need.name] === 'string') names[need.name] = overrides[need.name]!;
  return names;
}

export const needNamed = (name: string): Need | undefined => NEEDS.find((need) => need.name === name);
