import { OutboundError } from '../../../http/outbound-error.js';
import type { SalesforceApi } from './salesforce-api.js';
import { NEEDS, type Need, type SchemaNames, type WhoPushes } from './salesforce-schema.js';
import { soqlName } from './soql.js';

/** A field as `describe` gives it (REST API Developer Guide, "sObject Describe", resources_sobject_describe.htm). */
export interface DescribedField {
  name: string;
  label: string;
  type: string;
  referenceTo: string[];
  picklistValues: string[];
}

export type NeedStatus = 'ok' | 'missing' | 'wrong_type' | 'unused';

export interface NeedReport {
  need: string;
  label: string;
  /** The API name in effect ('' when unused). */
  name: string;
  status: NeedStatus;
  detail: string | null;
  /** For a field need: the fields of its object that fit, for the console's drop-down. */
  options: Array<{ name: string; label: string; type: string }>;
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
  appointment_customer: 'customer',
  appointment_sales_rep: 'sales_rep',
  sale_appointment: 'appointment',
  sale_item_sale: 'sale',
  sale_item_product: 'product',
};

/** Whether crm-sync uses a need with these settings: the sales needs only when it pushes itself. */
export const needInUse = (need: Need, pushes: WhoPushes): boolean => !need.forSales || pushes === 'crm-sync';

/**
 * Checks every name against the org's metadata: each object by its describe (one call per object), each field among
 * that object's fields and of a type that fits, each lookup pointing at the right object, the Sold value among the
 * result pick list's values. Nothing is guessed: what the org does not have is reported, with what it has instead.
 */
export async function checkSchema(api: SalesforceApi, names: SchemaNames, soldValue: string, pushes: WhoPushes): Promise<SchemaReport> {
  const global = await api.request<{ sobjects?: Array<{ name: string; label: string; queryable?: boolean }> }>({
    endpoint: 'GET /sobjects',
    method: 'GET',
    path: '/sobjects',
  });
  const objects = (global.data?.sobjects ?? []).filter((o) => o.queryable !== false).map((o) => ({ name: o.name, label: o.label }));
  const described = new Map<string, DescribedField[] | null>();
  const describe = async (object: string): Promise<DescribedField[] | null> => {
    if (!described.has(object)) described.set(object, await describeFields(api, object));
    return described.get(object)!;
  };

  const needs: NeedReport[] = [];
  for (const need of NEEDS) {
    const name = names[need.name] ?? '';
    const base = { need: need.name, label: need.label, name, options: [] as NeedReport['options'] };
    if (!needInUse(need, pushes)) {
      needs.push({ ...base, status: 'unused', detail: 'used only when crm-sync pushes sales itself' });
      continue;
    }
    if (need.of === 'object') {
      if (!name) needs.push({ ...base, status: need.optional ? 'unused' : 'missing', detail: need.optional ? null : 'no object named' });
      else if (!isName(name) || (await describe(name)) === null) needs.push({ ...base, status: 'missing', detail: `the org has no object ${name}` });
      else needs.push({ ...base, status: 'ok', detail: null });
      continue;
    }
    const objectName = names[need.of] ?? '';
    const fields = objectName && isName(objectName) ? await describe(objectName) : null;
    const options = (fields ?? []).filter((f) => need.types.includes(f.type)).map((f) => ({ name: f.name, label: f.label, type: f.type }));
    if (!name) {
      needs.push({ ...base, options, status: need.optional ? 'unused' : 'missing', detail: need.optional ? null : 'no field named' });
      continue;
    }
    if (!fields) {
      needs.push({ ...base, options, status: 'missing', detail: `its object (${objectName || 'none'}) is missing` });
      continue;
    }
    const field = fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (!field) needs.push({ ...base, options, status: 'missing', detail: `${objectName} has no field ${name}` });
    else if (!need.types.includes(field.type))
      needs.push({ ...base, options, status: 'wrong_type', detail: `${objectName}.${field.name} is ${field.type}; expected ${need.types.join(' or ')}` });
    else if (LOOKUP_TARGET[need.name] && names[LOOKUP_TARGET[need.name]] && !field.referenceTo.includes(names[LOOKUP_TARGET[need.name]]))
      needs.push({
        ...base,
        options,
        status: 'wrong_type',
        detail: `${objectName}.${field.name} points at ${field.referenceTo.join(', ') || 'nothing'}, not ${names[LOOKUP_TARGET[need.name]]}`,
      });
    else needs.push({ ...base, options, status: 'ok', detail: null });
  }

  const result = (await describe(names.appointment))?.find((f) => f.name === names.appointment_result);
  const values = result?.picklistValues ?? [];
  const soldOk = result?.type !== 'picklist' || values.includes(soldValue);
  return { ok: needs.every((n) => n.status === 'ok' || n.status === 'unused') && soldOk, needs, objects, soldValue: { value: soldValue, ok: soldOk, values } };
}

/** The problems of a report in one sentence, for the card and a refusal. */
export function describeProblems(report: SchemaReport): string {
  const problems = report.needs.filter((n) => n.status === 'missing' || n.status === 'wrong_type').map((n) => `${n.label}: ${n.detail}`);
  if (!report.soldValue.ok) problems.push(`the result pick list has no value ${report.soldValue.value} (it has: ${report.soldValue.values.join(', ')})`);
  return problems.join('; ');
}

const isName = (name: string): boolean => {
  try {
    soqlName(name);
    return true;
  } catch {
    return false;
  }
};

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
