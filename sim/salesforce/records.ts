/**
 * The org's rows and the checks a write meets before it is saved, with Salesforce's error codes (REST API Developer
 * Guide, Status Codes and Error Responses: https://developer.salesforce.com/docs/platform/api-rest/guide/errorcodes.html;
 * the codes are StatusCode values of the SOAP API: https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm).
 */
import { IdFactory, to18 } from './ids.js';
import type { Row, SoqlData } from './soql.js';
import type { SfField, SfObject, SfSchema, SfValidationRule } from './schema.js';

/** One error of a write: `[{message, errorCode, fields}]` on a single-record call. */
export interface SfError {
  message: string;
  errorCode: string;
  fields: string[];
}

export class SfWriteError extends Error {
  constructor(readonly errors: SfError[]) {
    super(errors.map((e) => `${e.errorCode}: ${e.message}`).join('; '));
  }
}

/** Salesforce writes datetimes in UTC with milliseconds and a `+0000` offset; record audit times hold whole seconds. */
export function sfDateTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('Z', '+0000');
}

const STRING_TYPES = new Set(['string', 'textarea', 'picklist', 'email', 'phone', 'url']);
const NUMBER_TYPES = new Set(['currency', 'double', 'int']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface RecordsSnapshot {
  tables: Map<string, Map<string, Row>>;
  deleted: Map<string, Recycled>;
}

/** A row in the Recycle Bin: as it was deleted, with IsDeleted true, and when. */
interface Recycled {
  object: string;
  row: Row;
  at: number;
}

/**
 * Deleted records stay in the Recycle Bin for 15 days, then are deleted for good (SOAP API Developer Guide,
 * "emptyRecycleBin()", https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_emptyrecyclebin.htm:
 * "The Recycle Bin lets you view and restore recently deleted records for 15 days before they're permanently
 * deleted"); QueryAll reads them only while they are there (REST API Developer Guide, "QueryAll",
 * https://developer.salesforce.com/docs/platform/api-rest/guide/resources-queryall.html: "After these records are
 * permanently removed from the recycle bin, you can no longer query them").
 */
export const RECYCLE_BIN_MS = 15 * 24 * 60 * 60 * 1000;

export interface WriteContext {
  userId: string;
  at: number;
  /** A test's own write: system fields (SystemModstamp, Name of an auto number...) may be given. */
  trusted?: boolean;
  /** Leaves SystemModstamp and LastModifiedDate as they are (a schema change, not a write). */
  keepStamps?: boolean;
}

export class SfRecords implements SoqlData {
  readonly ids = new IdFactory();
  readonly validationRules: SfValidationRule[] = [];
  private readonly tables = new Map<string, Map<string, Row>>();
  private readonly autoNumbers = new Map<string, number>();
  private readonly deleted = new Map<string, Recycled>();

  constructor(readonly schema: SfSchema) {}

  rows(object: SfObject): Row[] {
    return [...this.table(object.name).values()];
  }

  byId(id: string): { object: SfObject; row: Row } | undefined {
    const id18 = to18(id);
    const object = id18 ? this.schema.objectOfId(id18) : undefined;
    const row = object && id18 ? this.table(object.name).get(id18) : undefined;
    return object && row ? { object, row } : undefined;
  }

  get(objectName: string, id: string): Row | undefined {
    const id18 = to18(id);
    return id18 ? this.table(objectName).get(id18) : undefined;
  }

  /** Creates a row after the checks of a create; answers its 18-character id. */
  insert(object: SfObject, values: Record<string, unknown>, context: WriteContext): string {
    const row = this.emptyRow(object);
    const errors = this.apply(object, row, values, 'create', context);
    const missing = object.fields.filter((f) => isRequired(f) && (row[f.name] === null || row[f.name] === undefined)).map((f) => f.name);
    if (missing.length) errors.push({ errorCode: 'REQUIRED_FIELD_MISSING', message: `Required fields are missing: [${missing.join(', ')}]`, fields: missing });
    if (errors.length) throw new SfWriteError(errors);
    const id = this.ids.next(object.keyPrefix);
    const stamp = sfDateTime(context.at);
    const defaults: Row = { Id: id, IsDeleted: false, OwnerId: context.userId, CreatedById: context.userId, LastModifiedById: context.userId };
    for (const name of ['CreatedDate', 'LastModifiedDate', 'SystemModstamp']) defaults[name] = stamp;
    for (const [name, value] of Object.entries(defaults)) if (hasField(object, name) && (row[name] === null || !context.trusted)) row[name] = value;
    this.fillDefaults(object, row);
    this.validate(object, row);
    this.table(object.name).set(id, row);
    return id;
  }

  /** Changes a row after the checks of an update; SystemModstamp and LastModifiedDate move to `at`. */
  update(object: SfObject, id: string, values: Record<string, unknown>, context: WriteContext): void {
    const existing = this.get(object.name, id);
    if (!existing) throw new SfWriteError([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist', fields: [] }]);
    const row = { ...existing };
    const errors = this.apply(object, row, values, 'update', context);
    if (errors.length) throw new SfWriteError(errors);
    const stamp = sfDateTime(context.at);
    for (const name of ['LastModifiedDate', 'SystemModstamp'])
      if (hasField(object, name) && !context.keepStamps && !(context.trusted && name in values)) row[name] = stamp;
    if (hasField(object, 'LastModifiedById')) row.LastModifiedById = context.userId;
    this.validate(object, row);
    this.table(object.name).set(row.Id as string, row);
  }

  /**
   * Moves a row to the Recycle Bin: it is gone from queries (QueryAll still reads it), and calls naming it answer
   * ENTITY_IS_DELETED. A delete is an operation on the record like any other: IsDeleted becomes true and the audit
   * fields move (Object Reference, "System Fields", https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/system_fields.htm:
   * IsDeleted "indicates whether the record has been moved to the Recycle Bin"; the audit fields are "automatically
   * updated during API operations"), which is how a replication reading `SystemModstamp >= …` through QueryAll sees it.
   */
  delete(object: SfObject, id: string, context: { userId: string; at: number }): boolean {
    const id18 = to18(id);
    const row = id18 ? this.table(object.name).get(id18) : undefined;
    if (!id18 || !row) return false;
    this.table(object.name).delete(id18);
    const stamp = sfDateTime(context.at);
    const recycled: Row = { ...row };
    if (hasField(object, 'IsDeleted')) recycled.IsDeleted = true;
    for (const name of ['LastModifiedDate', 'SystemModstamp']) if (hasField(object, name)) recycled[name] = stamp;
    if (hasField(object, 'LastModifiedById')) recycled.LastModifiedById = context.userId;
    this.deleted.set(id18, { object: object.name.toLowerCase(), row: recycled, at: context.at });
    return true;
  }

  isDeleted(id: string): boolean {
    const id18 = to18(id);
    return !!id18 && this.deleted.has(id18);
  }

  /** The rows of an object still in the Recycle Bin (deleted less than 15 days ago), for QueryAll. */
  recycled(object: SfObject, now = Date.now()): Row[] {
    const name = object.name.toLowerCase();
    return [...this.deleted.values()].filter((r) => r.object === name && now - r.at < RECYCLE_BIN_MS).map((r) => r.row);
  }

  /** A row by id, live or still in the Recycle Bin (QueryAll's relationship paths). */
  byIdWithRecycled(id: string, now = Date.now()): { object: SfObject; row: Row } | undefined {
    const live = this.byId(id);
    if (live) return live;
    const id18 = to18(id);
    const recycled = id18 ? this.deleted.get(id18) : undefined;
    const object = recycled ? this.schema.object(recycled.object) : undefined;
    return recycled && object && now - recycled.at < RECYCLE_BIN_MS ? { object, row: recycled.row } : undefined;
  }

  /** Empties the Recycle Bin (an admin's "Empty the Recycle Bin", or 15 days passed): QueryAll reads none of them again. */
  emptyRecycleBin(): void {
    for (const recycled of this.deleted.values()) recycled.at = -Infinity;
  }

  /** Takes a row out of its table (a transaction not committed yet holds it); answers it as it was. */
  withhold(objectName: string, id: string): Row | undefined {
    const id18 = to18(id);
    const row = id18 ? this.table(objectName).get(id18) : undefined;
    if (id18) this.table(objectName).delete(id18);
    return row;
  }

  /** Puts a row into its table as is (a transaction commits). */
  put(objectName: string, row: Row): void {
    this.table(objectName).set(String(row.Id), row);
  }

  /** Every table as it is now, to put back when an all-or-none call fails. */
  snapshot(): RecordsSnapshot {
    return { tables: new Map([...this.tables].map(([name, rows]) => [name, new Map(rows)])), deleted: new Map(this.deleted) };
  }

  restore(snapshot: RecordsSnapshot): void {
    this.tables.clear();
    for (const [name, rows] of snapshot.tables) this.tables.set(name, rows);
    this.deleted.clear();
    for (const [id, recycled] of snapshot.deleted) this.deleted.set(id, recycled);
  }

  private table(objectName: string): Map<string, Row> {
    const key = this.schema.object(objectName)?.name.toLowerCase() ?? objectName.toLowerCase();
    let table = this.tables.get(key);
    if (!table) this.tables.set(key, (table = new Map()));
    return table;
  }

  private emptyRow(object: SfObject): Row {
    return Object.fromEntries(object.fields.map((f) => [f.name, null]));
  }

  private fillDefaults(object: SfObject, row: Row): void {
    for (const f of object.fields) {
      if (row[f.name] !== null) continue;
      if (f.type === 'boolean') row[f.name] = f.name === 'IsActive' || f.name.endsWith('Active__c');
      else if (f.type === 'picklist' && f.defaultedOnCreate)
        row[f.name] = f.picklistValues?.find((v) => v.defaultValue)?.value ?? f.picklistValues?.[0]?.value ?? null;
    }
    const name = object.fields.find((f) => f.nameField);
    if (name?.autoNumber && row.Name === null) {
      const next = (this.autoNumbers.get(object.name) ?? 0) + 1;
      this.autoNumbers.set(object.name, next);
      row.Name = `${object.label.replace(/[^A-Z]/g, '') || 'N'}-${String(next).padStart(6, '0')}`;
    } else if (name && name.name === 'Name' && row.Name === null && name.defaultedOnCreate) {
      // A text Name left out takes the record's id (Object Reference: custom object Name fields).
      row.Name = row.Id;
    }
  }

  private validate(object: SfObject, row: Row): void {
    const failed = this.validationRules.filter((rule) => rule.object.toLowerCase() === object.name.toLowerCase() && rule.failsWhen(row));
    if (failed.length)
      throw new SfWriteError(
        failed.map((rule) => ({ errorCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: rule.message, fields: rule.errorField ? [rule.errorField] : [] })),
      );
  }

  /** Checks and writes each given field into `row`; answers the errors found (none written if any). */
  private apply(object: SfObject, row: Row, values: Record<string, unknown>, mode: 'create' | 'update', context: WriteContext): SfError[] {
    const errors: SfError[] = [];
    for (const [key, value] of Object.entries(values)) {
      if (key === 'attributes') continue;
      const f = object.fields.find((candidate) => candidate.name.toLowerCase() === key.toLowerCase());
      if (!f) {
        errors.push({ errorCode: 'INVALID_FIELD', message: `No such column '${key}' on sobject of type ${object.name}`, fields: [] });
        continue;
      }
      if (f.name === 'Id' && mode === 'update') continue;
      const writable = mode === 'create' ? f.createable : f.updateable;
      if (!writable && !context.trusted) {
        errors.push({
          errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
          message: `Unable to create/update fields: ${f.name}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
          fields: [f.name],
        });
        continue;
      }
      const checked = this.checkValue(f, value);
      if ('error' in checked) errors.push(checked.error);
      else row[f.name] = checked.value;
    }
    if (mode === 'update') {
      const cleared = object.fields.filter((f) => isRequired(f) && f.name.toLowerCase() in lowerKeys(values) && row[f.name] === null).map((f) => f.name);
      if (cleared.length)
        errors.push({ errorCode: 'REQUIRED_FIELD_MISSING', message: `Required fields are missing: [${cleared.join(', ')}]`, fields: cleared });
    }
    return errors;
  }

  private checkValue(f: SfField, value: unknown): { value: unknown } | { error: SfError } {
    const fail = (errorCode: string, message: string) => ({ error: { errorCode, message, fields: [f.name] } });
    if (value === null || value === undefined) return { value: null };
    if (f.type === 'reference' || f.type === 'id') {
      const id = typeof value === 'string' ? to18(value) : null;
      if (!id) return fail('MALFORMED_ID', `${f.label}: id value of incorrect type: ${String(value)}`);
      const target = this.byId(id);
      const allowed = f.referenceTo ?? [];
      if (!target || (!allowed.includes('*') && !allowed.some((name) => name.toLowerCase() === target.object.name.toLowerCase())))
        return fail('INVALID_CROSS_REFERENCE_KEY', `invalid cross reference id`);
      return { value: id };
    }
    if (STRING_TYPES.has(f.type)) {
      if (typeof value !== 'string') return fail('JSON_PARSER_ERROR', `Cannot deserialize instance of string from ${typeof value} value ${String(value)}`);
      // Salesforce keeps an empty text as null.
      if (value === '') return { value: null };
      if (f.length && value.length > f.length)
        return fail('STRING_TOO_LONG', `${f.label}: data value too large: ${value.slice(0, 40)} (max length=${f.length})`);
      if (f.type === 'email' && value !== '' && !EMAIL.test(value)) return fail('INVALID_EMAIL_ADDRESS', `${f.label}: invalid email address: ${value}`);
      if (f.type === 'picklist' && f.restrictedPicklist && !f.picklistValues?.some((v) => v.active && v.value === value))
        return fail('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', `${f.label}: bad value for restricted picklist field: ${value}`);
      return { value };
    }
    if (NUMBER_TYPES.has(f.type)) {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail('JSON_PARSER_ERROR', `Cannot deserialize instance of ${f.type} from value ${String(value)}`);
      return { value };
    }
    if (f.type === 'boolean') {
      if (typeof value !== 'boolean') return fail('JSON_PARSER_ERROR', `Cannot deserialize instance of boolean from value ${String(value)}`);
      return { value };
    }
    // A date field takes `YYYY-MM-DD` (REST API Developer Guide, "Valid Date and DateTime Formats").
    if (f.type === 'date') {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
        return fail('JSON_PARSER_ERROR', `Cannot deserialize instance of date from value ${String(value)}`);
      return { value };
    }
    if (f.type === 'datetime') {
      const ms = typeof value === 'string' ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : NaN;
      if (Number.isNaN(ms)) return fail('JSON_PARSER_ERROR', `Cannot deserialize instance of datetime from value ${String(value)}`);
      return { value: new Date(ms).toISOString().replace('Z', '+0000') };
    }
    return { value };
  }
}

function hasField(object: SfObject, name: string): boolean {
  return object.fields.some((f) => f.name === name);
}

/** What describe calls required: not nillable, not defaulted, and set by the client. */
export function isRequired(f: SfField): boolean {
  return !f.nillable && !f.defaultedOnCreate && f.createable;
}

function lowerKeys(values: Record<string, unknown>): Record<string, true> {
  return Object.fromEntries(Object.keys(values).map((k) => [k.toLowerCase(), true]));
}
