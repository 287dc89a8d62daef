/**
 * The org's schema as data: objects and fields as `sobjects/{name}/describe` reports them
 * (REST API Developer Guide, sObject Describe: https://developer.salesforce.com/docs/platform/api-rest/guide/resources-sobject-describe.html;
 * the field properties are DescribeFieldResult's: https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_describesobjects_describesobjectresult.htm).
 * Tests change it per case (add or remove an object or field, rename one, make one required).
 *
 * The improveit 360 orgs follow the public evidence, each field with its source beside it (`source`; the table of
 * docs/appointment-crm-salesforce.md lists the same): One Click Contractor's published Classic and Lightning mappings,
 * improveit 360's Lightning help, and public code that queries the package's objects. A name no source shows is marked
 * `unconfirmed` (the Sale Item object and its fields); the daemon checks every name with describe, never trusting these.
 */
export type SfFieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'picklist'
  | 'reference'
  | 'email'
  | 'phone'
  | 'datetime'
  | 'date'
  | 'currency'
  | 'double'
  | 'int'
  | 'boolean'
  | 'base64'
  | 'url';

export interface SfPicklistValue {
  value: string;
  label: string;
  active: boolean;
  defaultValue?: boolean;
}

export interface SfField {
  name: string;
  label: string;
  type: SfFieldType;
  /** Objects a reference may point to (several for a polymorphic one). */
  referenceTo?: string[];
  /** The relationship's name in SOQL paths (`i360__Prospect__r`); null for a field that is not a reference. */
  relationshipName?: string | null;
  picklistValues?: SfPicklistValue[];
  /** A restricted pick list refuses values outside its list (INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST). */
  restrictedPicklist?: boolean;
  nillable: boolean;
  createable: boolean;
  updateable: boolean;
  defaultedOnCreate: boolean;
  /** Set by the platform (Id, audit fields, auto numbers): never written by a client. */
  system?: boolean;
  length?: number;
  nameField?: boolean;
  autoNumber?: boolean;
  /**
   * A formula field: its value is worked out from the row whenever it is read (`follow` reads a relationship path
   * from a row), never stored or written (Salesforce Help, "Formula Data Types"; describe says `calculated: true`).
   */
  calculated?: (row: Record<string, unknown>, follow: (row: Record<string, unknown>, path: string) => unknown) => unknown;
  /** Where the org's name comes from (public evidence), or why it is a guess: for readers of this file, never served. */
  source?: string;
}

export interface SfObject {
  name: string;
  label: string;
  labelPlural: string;
  keyPrefix: string;
  custom: boolean;
  createable: boolean;
  updateable: boolean;
  deletable: boolean;
  queryable: boolean;
  fields: SfField[];
}

/** A validation rule: a record for which `failsWhen` is true is refused with FIELD_CUSTOM_VALIDATION_EXCEPTION. */
export interface SfValidationRule {
  object: string;
  message: string;
  /** The field the error is shown beside (named in the error's `fields`). */
  errorField?: string;
  failsWhen: (record: Record<string, unknown>) => boolean;
}

type FieldSpec = Partial<SfField> & Pick<SfField, 'name' | 'type'>;

/** A field a client fills: nillable, createable and updateable unless said otherwise. */
export function field(spec: FieldSpec): SfField {
  const required = spec.nillable === false;
  return {
    label: spec.name
      .replace(/^(\w+?__)?/, '')
      .replace(/__c$/, '')
      .replace(/_/g, ' '),
    nillable: !required,
    createable: true,
    updateable: true,
    defaultedOnCreate: false,
    relationshipName: null,
    ...spec,
  };
}

function systemField(name: string, type: SfFieldType, label: string, extra: Partial<SfField> = {}): SfField {
  return { name, label, type, nillable: false, createable: false, updateable: false, defaultedOnCreate: true, system: true, relationshipName: null, ...extra };
}

function lookup(name: string, to: string, extra: Partial<SfField> = {}): SfField {
  return field({
    name,
    type: 'reference',
    referenceTo: [to],
    relationshipName: name.endsWith('__c') ? name.replace(/__c$/, '__r') : name.replace(/Id$/, ''),
    ...extra,
  });
}

function picklist(name: string, values: string[], extra: Partial<SfField> = {}): SfField {
  return field({ name, type: 'picklist', picklistValues: values.map((value) => ({ value, label: value, active: true })), restrictedPicklist: true, ...extra });
}

/** Id, owner and the audit fields every object here has (SystemModstamp and LastModifiedDate kept by each write). */
function standardFields(): SfField[] {
  return [
    systemField('Id', 'id', 'Record ID', { length: 18 }),
    lookup('OwnerId', 'User', { label: 'Owner ID', nillable: false, defaultedOnCreate: true, relationshipName: 'Owner' }),
    systemField('IsDeleted', 'boolean', 'Deleted'),
    systemField('CreatedDate', 'datetime', 'Created Date'),
    systemField('CreatedById', 'reference', 'Created By ID', { referenceTo: ['User'], relationshipName: 'CreatedBy' }),
    systemField('LastModifiedDate', 'datetime', 'Last Modified Date'),
    systemField('LastModifiedById', 'reference', 'Last Modified By ID', { referenceTo: ['User'], relationshipName: 'LastModifiedBy' }),
    systemField('SystemModstamp', 'datetime', 'System Modstamp'),
  ];
}

/** The Name field of a custom object: text (defaulted to the record id when left out) or an auto number. */
function nameField(label: string, autoNumber = false): SfField {
  return autoNumber
    ? systemField('Name', 'string', label, { nameField: true, autoNumber: true, length: 30 })
    : field({ name: 'Name', type: 'string', label, nillable: false, defaultedOnCreate: true, nameField: true, length: 80 });
}

function customObject(name: string, label: string, keyPrefix: string, fields: SfField[], autoNumberName = false): SfObject {
  return {
    name,
    label,
    labelPlural: `${label}s`,
    keyPrefix,
    custom: true,
    createable: true,
    updateable: true,
    deletable: true,
    queryable: true,
    fields: [...standardFields(), nameField(`${label} ${autoNumberName ? 'Number' : 'Name'}`, autoNumberName), ...fields],
  };
}

function standardObject(name: string, label: string, keyPrefix: string, fields: SfField[], access: Partial<SfObject> = {}): SfObject {
  return {
    name,
    label,
    labelPlural: `${label}s`,
    keyPrefix,
    custom: false,
    createable: true,
    updateable: true,
    deletable: true,
    queryable: true,
    fields,
    ...access,
  };
}

export type I360Namespace = 'i360__' | 'i360core__';

/** Unconfirmed: improveit 360 publishes no list of the result's values; `Sold` is the one the service's integration sets. */
export const RESULT_VALUES = ['Sold', 'Not Sold', 'Demo No Sale', 'No Demo', 'Reset', 'Cancelled'];

const OCC_CLASSIC = 'One Click Contractor, improveit360 Classic integration: jobs; improveit360 data mapping';
const OCC_LIGHTNING = 'One Click Contractor, improveit360 Lightning integration: jobs';
const PUBLIC_QUERY =
  'public code: SELECT i360__Address__c, i360__Start__c, i360__Start_Time__c, ... FROM i360__Appointment__c WHERE i360__Start__c >= <date literal>';
const PUBLIC_EXPORT = "a public export of i360__Appointment__c's ~90 fields";
const PUBLIC_SALE = 'public reports over the Sale object: i360__Sold_Price__c, i360__Sold_On__c';
const GUESS = 'unconfirmed: in no public source';

/** improveit 360's sales objects under a namespace: the Sale (its total and date public) and the Sale Item (a guess). */
function salesObjects(ns: I360Namespace, appointment: string): SfObject[] {
  return [
    customObject(`${ns}Product__c`, 'Product', 'a0D', [
      field({ name: `${ns}Product_Code__c`, type: 'string', length: 40, source: GUESS }),
      field({ name: `${ns}Price__c`, type: 'currency', source: GUESS }),
      field({ name: `${ns}Active__c`, type: 'boolean', nillable: false, defaultedOnCreate: true, source: GUESS }),
    ]),
    customObject(
      `${ns}Sale__c`,
      'Sale',
      'a0L',
      [
        lookup(`${ns}Appointment__c`, appointment, { source: GUESS }),
        field({ name: `${ns}Sold_Price__c`, type: 'currency', source: PUBLIC_SALE }),
        field({ name: `${ns}Sold_On__c`, type: 'date', source: PUBLIC_SALE }),
      ],
      true,
    ),
    // Unconfirmed: the Sale Item object's API name and fields are in no public source.
    customObject(
      `${ns}Sale_Item__c`,
      'Sale Item',
      'a0I',
      [
        lookup(`${ns}Sale__c`, `${ns}Sale__c`, { nillable: false, source: GUESS }),
        lookup(`${ns}Product__c`, `${ns}Product__c`, { source: GUESS }),
        field({ name: `${ns}Quantity__c`, type: 'double', nillable: false, source: GUESS }),
        field({ name: `${ns}Price__c`, type: 'currency', source: GUESS }),
        field({ name: `${ns}Description__c`, type: 'string', length: 255, source: GUESS }),
      ],
      true,
    ),
  ];
}

/** improveit 360 classic (`i360__`): the customer on the Prospect, the address and the split start on the Appointment. */
export function improveit360ClassicObjects(): SfObject[] {
  const ns = 'i360__';
  const onAppointment = (part: string) => field({ name: `${ns}${part}__c`, type: 'string', length: 255, source: `${OCC_CLASSIC}; ${PUBLIC_QUERY}` });
  return [
    customObject(`${ns}Prospect__c`, 'Prospect', 'a0P', [
      field({ name: `${ns}Primary_First_Name__c`, type: 'string', length: 80, source: OCC_CLASSIC }),
      field({ name: `${ns}Primary_Last_Name__c`, type: 'string', length: 80, source: OCC_CLASSIC }),
      field({ name: `${ns}Primary_Email__c`, type: 'email', length: 80, source: OCC_CLASSIC }),
      field({ name: `${ns}Phone_1__c`, type: 'phone', length: 40, source: OCC_CLASSIC }),
      field({
        name: `${ns}Phone_1_Type__c`,
        type: 'picklist',
        picklistValues: ['Home', 'Cell', 'Work'].map((v) => ({ value: v, label: v, active: true })),
        source: OCC_CLASSIC,
      }),
      field({ name: `${ns}Phone_2__c`, type: 'phone', length: 40, source: OCC_CLASSIC }),
    ]),
    customObject(`${ns}Staff__c`, 'Staff', 'a0S', [
      field({ name: `${ns}Email__c`, type: 'email', length: 80, source: 'One Click Contractor: SELECT Id, Name, i360__Email__c FROM i360__Staff__c' }),
    ]),
    customObject(
      `${ns}Appointment__c`,
      'Appointment',
      'a0A',
      [
        lookup(`${ns}Prospect__c`, `${ns}Prospect__c`, { source: OCC_CLASSIC }),
        lookup(`${ns}Sales_Rep_1__c`, `${ns}Staff__c`, { source: OCC_CLASSIC }),
        lookup(`${ns}Sales_Rep_2__c`, `${ns}Staff__c`, { source: PUBLIC_QUERY }),
        picklist(`${ns}Result__c`, RESULT_VALUES, {
          source: "One Click Contractor: picklist_values('i360__Appointment__c', 'i360__Result__c'); its values unconfirmed",
        }),
        // A date: public code filters it with a date literal, which SOQL allows only on a date field.
        field({ name: `${ns}Start__c`, type: 'date', source: PUBLIC_QUERY }),
        field({ name: `${ns}Start_Time__c`, type: 'string', length: 20, source: `${PUBLIC_QUERY}; ${PUBLIC_EXPORT}` }),
        field({ name: `${ns}Computed_Start_DateTime__c`, type: 'datetime', source: `${OCC_CLASSIC} (start_time); ${PUBLIC_EXPORT}` }),
        field({ name: `${ns}Computed_End_DateTime__c`, type: 'datetime', source: `${OCC_CLASSIC} (end_time); ${PUBLIC_EXPORT}` }),
        onAppointment('Address'),
        onAppointment('City'),
        onAppointment('State'),
        onAppointment('Zip'),
        field({ name: `${ns}County__c`, type: 'string', length: 80, source: PUBLIC_QUERY }),
        field({ name: `${ns}Email_Address__c`, type: 'email', length: 80, source: PUBLIC_EXPORT }),
        field({ name: `${ns}Comments__c`, type: 'textarea', length: 32768, source: OCC_CLASSIC }),
        // No job number: absent from the public export of the object's fields.
      ],
      true,
    ),
    ...salesObjects(ns, `${ns}Appointment__c`),
  ];
}

/**
 * improveit 360 Lightning (`i360core__`): the customer in standard Account and Contact ("Account is the primary
 * object", improveit 360 Lightning help, Glossary), the appointment carrying the Contact's name and e-mail, the
 * address, its Account and its start (One Click Contractor's Lightning mapping).
 */
export function improveit360LightningObjects(): SfObject[] {
  const ns = 'i360core__';
  const address = (part: string) => field({ name: `${ns}${part}__c`, type: 'string', length: 255, source: OCC_LIGHTNING });
  return [
    customObject(`${ns}Staff__c`, 'Staff', 'a0S', [
      field({
        name: `${ns}Email__c`,
        type: 'email',
        length: 80,
        source: 'One Click Contractor, Lightning FAQ: SELECT Id, Name, i360core__Email__c FROM i360core__Staff__c',
      }),
    ]),
    customObject(
      `${ns}Appointment__c`,
      'Sales Appointment',
      'a0A',
      [
        lookup(`${ns}Account__c`, 'Account', { source: OCC_LIGHTNING }),
        // Unconfirmed: the lookup the Contact's name and e-mail below are read through (their formula's path).
        lookup(`${ns}Contact__c`, 'Contact', { source: `${GUESS}; inferred from i360core__Contact_Name__c and i360core__Contact_Email__c` }),
        field({
          name: `${ns}Contact_Name__c`,
          type: 'string',
          length: 255,
          createable: false,
          updateable: false,
          calculated: (row, follow) => follow(row, `${ns}Contact__r.Name`) ?? null,
          source: `${OCC_LIGHTNING} (Customer Name); a formula from the Contact here`,
        }),
        field({
          name: `${ns}Contact_Email__c`,
          type: 'email',
          length: 80,
          createable: false,
          updateable: false,
          calculated: (row, follow) => follow(row, `${ns}Contact__r.Email`) ?? null,
          source: `${OCC_LIGHTNING} (Email); a formula from the Contact here`,
        }),
        lookup(`${ns}Sales_Rep_1__c`, `${ns}Staff__c`, { source: OCC_LIGHTNING }),
        picklist(`${ns}Result__c`, RESULT_VALUES, { source: `${GUESS}: the classic name under the Lightning namespace` }),
        field({ name: `${ns}Appointment_Date_Time__c`, type: 'datetime', source: OCC_LIGHTNING }),
        field({ name: `${ns}Appointment_End_Date_Time__c`, type: 'datetime', source: OCC_LIGHTNING }),
        address('Street_Address'),
        address('City'),
        address('State_Province'),
        address('Zip_Postal_Code'),
        field({ name: `${ns}Product_Categories__c`, type: 'string', length: 255, source: OCC_LIGHTNING }),
      ],
      true,
    ),
    ...salesObjects(ns, `${ns}Appointment__c`),
  ];
}

/** improveit 360's objects under a namespace: classic `i360__` or Lightning `i360core__`. */
export function improveit360Objects(ns: I360Namespace): SfObject[] {
  // Account and Contact are in every org (standard objects); only Lightning keeps its customers there.
  return [...customerObjects(), ...(ns === 'i360__' ? improveit360ClassicObjects() : improveit360LightningObjects())];
}

/** Account and Contact (Object Reference for the Salesforce Platform, Account and Contact), as improveit 360 Lightning keeps its customers. */
export function customerObjects(): SfObject[] {
  const source = 'Salesforce Object Reference (standard field)';
  return [
    standardObject('Account', 'Account', '001', [
      ...standardFields(),
      field({ name: 'Name', type: 'string', nillable: false, nameField: true, length: 255, source }),
      field({ name: 'Phone', type: 'phone', length: 40, source }),
      field({ name: 'BillingStreet', type: 'textarea', length: 255, source }),
      field({ name: 'BillingCity', type: 'string', length: 40, source }),
      field({ name: 'BillingState', type: 'string', length: 80, source }),
      field({ name: 'BillingPostalCode', type: 'string', length: 20, source }),
    ]),
    standardObject('Contact', 'Contact', '003', [
      ...standardFields(),
      lookup('AccountId', 'Account', { source }),
      field({ name: 'FirstName', type: 'string', length: 40, source }),
      field({ name: 'LastName', type: 'string', nillable: false, length: 80, source }),
      field({
        name: 'Name',
        type: 'string',
        nameField: true,
        createable: false,
        updateable: false,
        length: 121,
        calculated: (row) => [row.FirstName, row.LastName].filter((part) => typeof part === 'string' && part).join(' ') || null,
        source: `${source}: the first and last name, read only`,
      }),
      field({ name: 'Email', type: 'email', length: 80, source }),
      field({ name: 'Phone', type: 'phone', length: 40, source }),
    ]),
  ];
}

/** The standard objects the adapter touches: the org and its users, and Salesforce Files. */
export function standardObjects(): SfObject[] {
  const audit = standardFields().filter((f) => f.name !== 'OwnerId');
  return [
    standardObject(
      'User',
      'User',
      '005',
      [
        ...audit,
        field({ name: 'Name', type: 'string', createable: false, updateable: false, nameField: true }),
        field({ name: 'FirstName', type: 'string' }),
        field({ name: 'LastName', type: 'string', nillable: false }),
        field({ name: 'Email', type: 'email', nillable: false }),
        field({ name: 'Username', type: 'string', nillable: false }),
        field({ name: 'IsActive', type: 'boolean', nillable: false, defaultedOnCreate: true }),
      ],
      { createable: false, deletable: false },
    ),
    standardObject(
      'Organization',
      'Organization',
      '00D',
      [
        ...audit,
        field({ name: 'Name', type: 'string', nameField: true }),
        systemField('IsSandbox', 'boolean', 'Is Sandbox'),
        systemField('OrganizationType', 'string', 'Edition'),
        systemField('InstanceName', 'string', 'Instance Name'),
        // The org's default time zone, an IANA name such as America/Chicago (Object Reference, Organization).
        systemField('TimeZoneSidKey', 'picklist', 'Default Time Zone'),
      ],
      { createable: false, deletable: false },
    ),
    // ContentVersion, ContentDocument, ContentDocumentLink: Object Reference for the Salesforce Platform
    // (https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_contentversion.htm and its siblings).
    standardObject(
      'ContentVersion',
      'Content Version',
      '068',
      [
        ...standardFields(),
        systemField('ContentDocumentId', 'reference', 'ContentDocument ID', {
          referenceTo: ['ContentDocument'],
          relationshipName: 'ContentDocument',
          createable: true,
        }),
        field({ name: 'Title', type: 'string', nillable: false, defaultedOnCreate: true, nameField: true, length: 255 }),
        field({ name: 'PathOnClient', type: 'string', nillable: false, updateable: false, length: 500 }),
        field({ name: 'VersionData', type: 'base64', nillable: false, updateable: false }),
        field({ name: 'FirstPublishLocationId', type: 'reference', referenceTo: ['*'], relationshipName: 'FirstPublishLocation', updateable: false }),
        field({ name: 'Description', type: 'textarea', length: 1000 }),
        field({ name: 'ReasonForChange', type: 'string', length: 1000 }),
        systemField('VersionNumber', 'string', 'Version Number'),
        systemField('IsLatest', 'boolean', 'Is Latest'),
        systemField('ContentSize', 'int', 'Size'),
        systemField('FileExtension', 'string', 'File Extension'),
        systemField('FileType', 'string', 'File Type'),
      ],
      { deletable: false },
    ),
    standardObject(
      'ContentDocument',
      'Content Document',
      '069',
      [
        ...standardFields(),
        field({ name: 'Title', type: 'string', nillable: false, nameField: true, length: 255 }),
        systemField('LatestPublishedVersionId', 'reference', 'Latest Published Version ID', {
          referenceTo: ['ContentVersion'],
          relationshipName: 'LatestPublishedVersion',
        }),
        systemField('ContentSize', 'int', 'Size'),
        systemField('FileExtension', 'string', 'File Extension'),
        systemField('FileType', 'string', 'File Type'),
      ],
      { createable: false },
    ),
    // A classic note on a record (Object Reference, Note:
    // https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_note.htm).
    standardObject('Note', 'Note', '002', [
      ...standardFields(),
      field({ name: 'ParentId', type: 'reference', referenceTo: ['*'], relationshipName: 'Parent', nillable: false, updateable: false }),
      field({ name: 'Title', type: 'string', nillable: false, nameField: true, length: 80 }),
      field({ name: 'Body', type: 'textarea', length: 32000 }),
      field({ name: 'IsPrivate', type: 'boolean', nillable: false, defaultedOnCreate: true }),
    ]),
    // A classic attachment on a record, the "Notes & Attachments" related list (Object Reference, Attachment:
    // https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_attachment.htm):
    // ParentId (polymorphic), Name, Body (base64), ContentType, BodyLength.
    standardObject('Attachment', 'Attachment', '00P', [
      ...standardFields(),
      field({ name: 'ParentId', type: 'reference', referenceTo: ['*'], relationshipName: 'Parent', nillable: false, updateable: false }),
      field({ name: 'Name', type: 'string', nillable: false, nameField: true, length: 255 }),
      field({ name: 'Body', type: 'base64', nillable: false }),
      field({ name: 'ContentType', type: 'string', length: 120 }),
      systemField('BodyLength', 'int', 'Body Length'),
      field({ name: 'Description', type: 'textarea', length: 500 }),
      field({ name: 'IsPrivate', type: 'boolean', nillable: false, defaultedOnCreate: true }),
    ]),
    standardObject('ContentDocumentLink', 'Content Document Link', '06A', [
      systemField('Id', 'id', 'Content Document Link ID', { length: 18 }),
      systemField('IsDeleted', 'boolean', 'Deleted'),
      systemField('SystemModstamp', 'datetime', 'System Modstamp'),
      lookup('ContentDocumentId', 'ContentDocument', { nillable: false, updateable: false }),
      field({ name: 'LinkedEntityId', type: 'reference', referenceTo: ['*'], relationshipName: 'LinkedEntity', nillable: false, updateable: false }),
      picklist('ShareType', ['V', 'C', 'I'], { nillable: false, defaultedOnCreate: true }),
      picklist('Visibility', ['AllUsers', 'InternalUsers', 'SharedUsers'], { nillable: false, defaultedOnCreate: true }),
    ]),
  ];
}

/** The objects of an org, by name, matched without regard to case as the API does. */
export class SfSchema {
  private readonly objects = new Map<string, SfObject>();

  constructor(objects: SfObject[]) {
    for (const object of objects) this.addObject(object);
  }

  static improveit360(ns: I360Namespace = 'i360__'): SfSchema {
    return new SfSchema([...standardObjects(), ...improveit360Objects(ns)]);
  }

  all(): SfObject[] {
    return [...this.objects.values()];
  }

  object(name: string): SfObject | undefined {
    return this.objects.get(name.toLowerCase());
  }

  /** The object whose records' ids start with this key prefix. */
  objectOfId(id: string): SfObject | undefined {
    return this.all().find((o) => id.startsWith(o.keyPrefix));
  }

  field(object: string, name: string): SfField | undefined {
    return this.object(object)?.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  }

  /** The reference field whose relationship name is `relationship` (`i360__Prospect__r`, `Owner`). */
  relationship(object: string, relationship: string): SfField | undefined {
    return this.object(object)?.fields.find((f) => f.relationshipName?.toLowerCase() === relationship.toLowerCase());
  }

  addObject(object: SfObject): void {
    this.objects.set(object.name.toLowerCase(), object);
  }

  removeObject(name: string): void {
    this.objects.delete(name.toLowerCase());
  }

  addField(object: string, spec: FieldSpec): SfField {
    const target = this.mustObject(object);
    const added = field(spec);
    target.fields = [...target.fields.filter((f) => f.name.toLowerCase() !== spec.name.toLowerCase()), added];
    return added;
  }

  removeField(object: string, name: string): void {
    const target = this.mustObject(object);
    target.fields = target.fields.filter((f) => f.name.toLowerCase() !== name.toLowerCase());
  }

  /** Changes a field's description (type, required-ness, pick list values...). */
  changeField(object: string, name: string, changes: Partial<SfField>): void {
    const target = this.mustObject(object);
    const existing = this.field(object, name);
    if (!existing) throw new Error(`no field ${name} on ${object}`);
    target.fields = target.fields.map((f) => (f === existing ? { ...f, ...changes } : f));
  }

  /** Required on create and update: not nillable and not defaulted, as describe reports a required field. */
  makeRequired(object: string, name: string): void {
    this.changeField(object, name, { nillable: false, defaultedOnCreate: false });
  }

  private mustObject(name: string): SfObject {
    const object = this.object(name);
    if (!object) throw new Error(`no object ${name} in the simulated org`);
    return object;
  }
}
