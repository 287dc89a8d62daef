import { OutboundError } from '../../../http/outbound-error.js';
import type { SalesforceApi } from './salesforce-api.js';
import { confirmedName, NEEDS, PRESETS, type Need, type SalesforcePreset, type SchemaNames, type WhoPushes } from './salesforce-schema.js';
import { soqlName } from './soql.js';

/** A field as `describe` gives it (REST API Developer Guide, "sObject Describe", resources_sobject_describe.htm). */
export interface DescribedField {
  name: string;
  label: string;
  type: string;
  referenceTo: string[];
  /** The name a SOQL path uses to go through this lookup (`i360__Prospect__r`, `Account`); null when not a lookup. */
  relationshipName: string | null;
  picklistValues: string[];
}

/**
 * `absent`: an optional need whose field the org does not have (or not of a fitting type): "not in this org", turned
 * off, never degrading the connection. `missing` and `wrong_type` are problems of a need crm-sync cannot go without.
 */
export type NeedStatus = 'ok' | 'missing' | 'wrong_type' | 'unused' | 'absent';

export interface NeedReport {
  need: string;
  label: string;
  /** The API name or field path in effect ('' when unused). */
  name: string;
  status: NeedStatus;
  detail: string | null;
  optional: boolean;
  /** False for a preset's name no public source shows (a guess, checked here): the console opens its picker. */
  confirmed: boolean;
  /** For a field need: the types that fit its last field (describe's `type`). */
  types: readonly string[];
  /** For a field need: the fields of its object that fit, for the console's picker. */
  options: Array<{ name: string; label: string; type: string }>;
  /** For a need that may cross lookups: the lookups of its object, to pick a field of the object they reach. */
  lookups: Array<{ name: string; label: string; relationshipName: string; referenceTo: string }>;
}

export interface SchemaReport {
  ok: boolean;
  needs: NeedReport[];
  /** The org's objects (global describe), for the object drop-downs. */
  objects: Array<{ name: string; label: string }>;
  /** The Sold value's problem, or null. */
  soldValue: { value: string; ok: boolean; values: string[] };
}

/** Which need each lookup must point at. */
const LOOKUP_TARGET: Record<string, string> = {
  sale_appointment: 'appointment',
  sale_item_sale: 'sale',
  sale_item_product: 'product',
};

/** SOQL follows at most five child-to-parent relationships in a path (SOQL and SOSL Reference, Relationship Query Limits). */
const MAX_LOOKUPS = 5;

/** Whether crm-sync uses a need with these settings: the sales needs only when it pushes itself. */
export const needInUse = (need: Need, pushes: WhoPushes): boolean => !need.forSales || pushes === 'crm-sync';

/** The org's objects as describe tells them, each described once per check. */
export class OrgDescriber {
  private readonly described = new Map<string, Promise<DescribedField[] | null>>();

  constructor(private readonly api: SalesforceApi) {}

  /** The object's fields; null when the org has no such object (or this user may not see it). */
  fields(object: string): Promise<DescribedField[] | null> {
    const key = object.toLowerCase();
    if (!this.described.has(key)) this.described.set(key, isName(object) ? describeFields(this.api, object) : Promise.resolve(null));
    return this.described.get(key)!;
  }

  /**
   * A field path from `root` (`i360__Prospect__r.i360__Primary_Email__c`): each step but the last a lookup's
   * relationship name, the last a field of the object reached. Answers the field and the path as the org spells it,
   * or why the org has no such path.
   */
  async resolve(root: string, path: string): Promise<{ field: DescribedField; path: string; object: string } | { problem: string }> {
    const steps = path.split('.');
    if (steps.length - 1 > MAX_LOOKUPS) return { problem: `${path} goes through more than ${MAX_LOOKUPS} lookups` };
    let object = root;
    const spelled: string[] = [];
    for (const [at, step] of steps.entries()) {
      const fields = await this.fields(object);
      if (!fields) return { problem: `the org has no object ${object}` };
      if (at === steps.length - 1) {
        const field = fields.find((f) => f.name.toLowerCase() === step.toLowerCase());
        if (!field) return { problem: `${object} has no field ${step}` };
        return { field, path: [...spelled, field.name].join('.'), object };
      }
      const lookup = fields.find((f) => f.relationshipName?.toLowerCase() === step.toLowerCase());
      if (!lookup) return { problem: `${object} has no lookup ${step}` };
      if (lookup.referenceTo.length !== 1)
        return { problem: `${object}.${lookup.name} points at ${lookup.referenceTo.length ? 'several objects' : 'no object'}` };
      spelled.push(lookup.relationshipName!);
      object = lookup.referenceTo[0];
    }
    return { problem: `no field in ${path}` };
  }
}

/**
 * Checks every name against the org's metadata: each object by its describe, each field path step by step through
 * its lookups to a field of a type that fits, each lookup the sale writes pointing at the right object, the Sold value
 * among the result pick list's values. Nothing is guessed: what the org does not have is reported, with what it has
 * instead; an optional need the org lacks is turned off ("not in this org") and leaves the connection usable.
 */
export async function checkSchema(
  api: SalesforceApi,
  names: SchemaNames,
  soldValue: string,
  pushes: WhoPushes,
  preset: SalesforcePreset = 'improveit360-classic',
): Promise<SchemaReport> {
  const global = await api.request<{ sobjects?: Array<{ name: string; label: string; queryable?: boolean }> }>({
    endpoint: 'GET /sobjects',
    method: 'GET',
    path: '/sobjects',
  });
  const objects = (global.data?.sobjects ?? []).filter((o) => o.queryable !== false).map((o) => ({ name: o.name, label: o.label }));
  const org = new OrgDescriber(api);
  const needs: NeedReport[] = [];
  for (const need of NEEDS) needs.push(await checkNeed(org, need, names, pushes, preset));
  const result = (await org.fields(names.appointment))?.find((f) => f.name.toLowerCase() === names.appointment_result.toLowerCase());
  const values = result?.picklistValues ?? [];
  const soldOk = result?.type !== 'picklist' || values.includes(soldValue);
  const blocking = needs.some((n) => !n.optional && (n.status === 'missing' || n.status === 'wrong_type'));
  return { ok: !blocking && soldOk, needs, objects, soldValue: { value: soldValue, ok: soldOk, values } };
}

async function checkNeed(org: OrgDescriber, need: Need, names: SchemaNames, pushes: WhoPushes, preset: SalesforcePreset): Promise<NeedReport> {
  const name = names[need.name] ?? '';
  const base = {
    need: need.name,
    label: need.label,
    name,
    optional: need.optional === true,
    confirmed: confirmedName(preset, need.name, name),
    types: need.types,
    options: [] as NeedReport['options'],
    lookups: [] as NeedReport['lookups'],
  };
  const off = (detail: string): NeedReport => ({
    ...base,
    status: need.optional ? 'absent' : 'missing',
    detail: need.optional ? `not in this org: ${detail}` : detail,
  });
  if (!needInUse(need, pushes)) return { ...base, status: 'unused', detail: 'used only when crm-sync pushes sales itself' };
  if (need.of === 'object') {
    if (!name) return { ...base, status: need.optional ? 'unused' : 'missing', detail: need.optional ? null : 'no object named' };
    if ((await org.fields(name)) === null) return off(`the org has no object ${name}${base.confirmed ? '' : ` (${unconfirmedWords(preset, need.name)})`}`);
    return { ...base, status: 'ok', detail: null };
  }
  const root = names[need.of] ?? '';
  const fields = root ? await org.fields(root) : null;
  base.options = (fields ?? []).filter((f) => need.types.includes(f.type)).map((f) => ({ name: f.name, label: f.label, type: f.type }));
  if (!need.own)
    base.lookups = (fields ?? [])
      .filter((f) => f.type === 'reference' && f.relationshipName && f.referenceTo.length === 1)
      .map((f) => ({ name: f.name, label: f.label, relationshipName: f.relationshipName!, referenceTo: f.referenceTo[0] }));
  if (!name) return { ...base, status: need.optional ? 'unused' : 'missing', detail: need.optional ? null : 'no field named' };
  if (!fields)
    return need.optional
      ? off(`its object (${root || 'none'}) is missing`)
      : { ...base, status: 'missing', detail: `its object (${root || 'none'}) is missing` };
  if (need.own && name.includes('.'))
    return { ...base, status: 'wrong_type', detail: `${name}: crm-sync writes this field, so it must be ${root}'s own (no lookup)` };
  if (!isName(name)) return { ...base, status: 'wrong_type', detail: `${JSON.stringify(name).slice(0, 80)} is not a field path` };
  const resolved = await org.resolve(root, name);
  if ('problem' in resolved) return off(`${resolved.problem}${base.confirmed ? '' : ` (${unconfirmedWords(preset, need.name)})`}`);
  const { field, path, object } = resolved;
  if (!need.types.includes(field.type)) {
    const detail = `${object}.${field.name} is ${field.type}; expected ${need.types.join(' or ')}`;
    return need.optional ? { ...base, status: 'absent', detail: `turned off: ${detail}` } : { ...base, status: 'wrong_type', detail };
  }
  const target = LOOKUP_TARGET[need.name] ? names[LOOKUP_TARGET[need.name]] : '';
  if (target && !field.referenceTo.some((t) => t.toLowerCase() === target.toLowerCase())) {
    const detail = `${object}.${field.name} points at ${field.referenceTo.join(', ') || 'nothing'}, not ${target}`;
    return need.optional ? { ...base, status: 'absent', detail: `turned off: ${detail}` } : { ...base, status: 'wrong_type', detail };
  }
  return { ...base, name: path, status: 'ok', detail: null };
}

const unconfirmedWords = (preset: SalesforcePreset, need: string): string => `the preset's name is unconfirmed: ${PRESETS[preset][need]?.source ?? 'a guess'}`;

/**
 * The names the adapter uses: each need's path as the org spells it when the org has it, '' for an optional need
 * turned off (never read, so it never breaks a query); a required one the org lacks stays as named (the connection
 * is degraded and its calls fail saying so).
 */
export function usableNames(report: SchemaReport, names: SchemaNames): SchemaNames {
  const usable = { ...names };
  for (const need of report.needs) usable[need.need] = need.status === 'ok' ? need.name : need.status === 'absent' ? '' : (names[need.need] ?? '');
  return usable;
}

/** The appointment's paths the adapter reads, as the org spells them, and the type each ends on. */
export interface ReadablePaths {
  names: SchemaNames;
  types: Record<string, string>;
}

/**
 * The appointment's needs the org has, resolved through describe (the appointment and each object a path reaches,
 * once each): an optional need the org lacks, or whose field does not fit, is left out of every query.
 */
export async function readablePaths(api: SalesforceApi, names: SchemaNames): Promise<ReadablePaths> {
  const org = new OrgDescriber(api);
  const usable = { ...names };
  const types: Record<string, string> = {};
  for (const need of NEEDS) {
    if (need.of !== 'appointment' || !names[need.name]) continue;
    const resolved = isName(names[need.name]) ? await org.resolve(names.appointment, names[need.name]) : { problem: 'not a path' };
    if (!('problem' in resolved) && need.types.includes(resolved.field.type)) {
      usable[need.name] = resolved.path;
      types[need.name] = resolved.field.type;
    } else if (need.optional) usable[need.name] = '';
  }
  return { names: usable, types };
}

/** The problems of a report in one sentence, for the card and a refusal: only what crm-sync cannot go without. */
export function describeProblems(report: SchemaReport): string {
  const problems = report.needs.filter((n) => !n.optional && (n.status === 'missing' || n.status === 'wrong_type')).map((n) => `${n.label}: ${n.detail}`);
  if (!report.soldValue.ok) problems.push(`the result pick list has no value ${report.soldValue.value} (it has: ${report.soldValue.values.join(', ')})`);
  return problems.join('; ');
}

/** The optional needs turned off in this org, in one sentence for the card (they do not degrade it). */
export function describeTurnedOff(report: SchemaReport): string {
  return report.needs
    .filter((n) => n.status === 'absent')
    .map((n) => n.label)
    .join(', ');
}

const isName = (name: string): boolean => {
  try {
    soqlName(name);
    return true;
  } catch {
    return false;
  }
};

/** An object's fields as the console's picker shows them (a step of a path): each with its type and, for a lookup, where it goes. */
export async function describeObject(api: SalesforceApi, object: string): Promise<DescribedField[] | null> {
  return isName(object) ? describeFields(api, object) : null;
}

async function describeFields(api: SalesforceApi, object: string): Promise<DescribedField[] | null> {
  try {
    const { data } = await api.request<{ fields?: Array<Record<string, unknown>> }>({
      endpoint: 'GET /sobjects/:object/describe',
      method: 'GET',
      path: `/sobjects/${object}/describe`,
    });
    return (data?.fields ?? []).map((f) => ({
      name: String(f.name),
      label: String(f.label ?? f.name),
      type: String(f.type),
      referenceTo: Array.isArray(f.referenceTo) ? f.referenceTo.map(String) : [],
      relationshipName: typeof f.relationshipName === 'string' && f.relationshipName ? f.relationshipName : null,
      picklistValues: Array.isArray(f.picklistValues)
        ? (f.picklistValues as Array<Record<string, unknown>>).filter((p) => p.active !== false).map((p) => String(p.value))
        : [],
    }));
  } catch (err) {
    // NOT_FOUND: the org has no such object (or this user may not see it).
    if (err instanceof OutboundError && err.status === 404) return null;
    throw err;
  }
}
