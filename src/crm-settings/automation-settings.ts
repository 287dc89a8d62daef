import type { FieldError } from '../common/validation-errors.js';
import { RECORD_MODULES, type RecordModule } from '../service-api/service-api.types.js';

/** The CRMs an automation reads, as `automation_setting.crm` names them. */
export const AUTOMATION_CRMS = ['appointment', 'record'] as const;
export type AutomationCrm = (typeof AUTOMATION_CRMS)[number];

export const MATCH_KEYS = ['job_number', 'email', 'phone'] as const;

/** Zoho's automations a write may fire (record.yaml's `trigger`); all three is what Zoho runs when none is sent. */
export const ZOHO_TRIGGERS = ['workflow', 'approval', 'blueprint'] as const;
export type ZohoTrigger = (typeof ZOHO_TRIGGERS)[number];
export type MatchKey = (typeof MATCH_KEYS)[number];

export interface AppointmentCrmAutomation {
  create_projects: boolean;
  /** Empty: any status qualifies. */
  statuses: string[];
  /** The default project owner (e-mail); required when create_projects is on. */
  owner: string | null;
  owner_from_sales_rep: boolean;
  match_on: MatchKey[];
  auto_accept: boolean;
  /** The change time the next read starts from, when asked (ISO 8601); null: from the moment creation was first turned on. */
  start_from: string | null;
}

export interface RecordCrmAutomation {
  create_projects: boolean;
  module: RecordModule;
  /** The field whose value qualifies a record (e.g. `Stage`); null: every record of the module. */
  field: string | null;
  values: string[];
  owner: string | null;
  owner_from_sales_rep: boolean;
  match_on: MatchKey[];
  match_fields: { job_number?: string };
  auto_accept: boolean;
  deal_stage_on_approved: string | null;
  deal_stage_on_lost: string | null;
  quote_line_items: boolean;
  /** A Zoho Product id, exact digits. */
  fallback_product_id: string | null;
  /** Which of the org's workflows, approvals and blueprints crm-sync's writes to Zoho fire (sent as `trigger`). */
  trigger: ZohoTrigger[];
  /** As for the appointment CRM; a change of module restarts at this moment unless a new start_from comes with it. */
  start_from: string | null;
}

export interface AutomationSettingsByCrm {
  appointment: AppointmentCrmAutomation;
  record: RecordCrmAutomation;
}

export const APPOINTMENT_CRM_DEFAULTS: Readonly<AppointmentCrmAutomation> = Object.freeze({
  create_projects: false,
  statuses: [],
  owner: null,
  owner_from_sales_rep: false,
  match_on: [],
  auto_accept: false,
  start_from: null,
});

export const RECORD_CRM_DEFAULTS: Readonly<RecordCrmAutomation> = Object.freeze({
  create_projects: false,
  module: 'Deals',
  field: null,
  values: [],
  owner: null,
  owner_from_sales_rep: false,
  match_on: [],
  match_fields: {},
  auto_accept: false,
  deal_stage_on_approved: 'Closed Won',
  deal_stage_on_lost: null,
  quote_line_items: false,
  fallback_product_id: null,
  trigger: [...ZOHO_TRIGGERS],
  start_from: null,
});

export type Validated<T> = { ok: true; settings: T } | { ok: false; errors: FieldError[] };

/** What GET answers beside the settings; a PUT that sends them back has them ignored. */
const READ_ONLY_FIELDS = new Set(['last_run_at', 'cursor', 'last_error', 'updated_at', 'updated_by', 'last_entry_id']);

const MAX_LIST = 100;
const MAX_TEXT = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A Zoho field's API name. */
const ZOHO_FIELD = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;
/** An ISO 8601 date and time with its offset (a time without one would depend on the server's zone). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
/** How far ahead of this server's clock a start may be (the clocks of the CRM and of the replicas differ a little). */
const CLOCK_SKEW_MS = 60_000;

/**
 * A PUT's body over the settings in effect: a field left out keeps its value, so a client that knows fewer fields
 * (an older console) never resets the others. Every bad field is named, each with a stable code.
 */
export function validateAppointmentCrmAutomation(
  body: unknown,
  current: AppointmentCrmAutomation = APPOINTMENT_CRM_DEFAULTS,
): Validated<AppointmentCrmAutomation> {
  const v = new FieldChecker(body, Object.keys(APPOINTMENT_CRM_DEFAULTS));
  const settings: AppointmentCrmAutomation = {
    create_projects: v.boolean('create_projects', current.create_projects),
    statuses: v.texts('statuses', current.statuses),
    owner: v.email('owner', current.owner),
    owner_from_sales_rep: v.boolean('owner_from_sales_rep', current.owner_from_sales_rep),
    match_on: v.oneOfEach('match_on', MATCH_KEYS, current.match_on),
    auto_accept: v.boolean('auto_accept', current.auto_accept),
    start_from: v.pastTime('start_from', current.start_from),
  };
  v.ownerWhenCreating(settings);
  return v.result(settings);
}

export function validateRecordCrmAutomation(body: unknown, current: RecordCrmAutomation = RECORD_CRM_DEFAULTS): Validated<RecordCrmAutomation> {
  const v = new FieldChecker(body, Object.keys(RECORD_CRM_DEFAULTS));
  const settings: RecordCrmAutomation = {
    create_projects: v.boolean('create_projects', current.create_projects),
    module: v.oneOf('module', RECORD_MODULES, current.module),
    field: v.zohoField('field', current.field),
    values: v.texts('values', current.values),
    owner: v.email('owner', current.owner),
    owner_from_sales_rep: v.boolean('owner_from_sales_rep', current.owner_from_sales_rep),
    match_on: v.oneOfEach('match_on', MATCH_KEYS, current.match_on),
    match_fields: v.matchFields('match_fields', current.match_fields),
    auto_accept: v.boolean('auto_accept', current.auto_accept),
    deal_stage_on_approved: v.optionalText('deal_stage_on_approved', current.deal_stage_on_approved),
    deal_stage_on_lost: v.optionalText('deal_stage_on_lost', current.deal_stage_on_lost),
    quote_line_items: v.boolean('quote_line_items', current.quote_line_items),
    fallback_product_id: v.digits('fallback_product_id', current.fallback_product_id),
    trigger: v.oneOfEach('trigger', ZOHO_TRIGGERS, current.trigger),
    start_from: v.pastTime('start_from', current.start_from),
  };
  v.ownerWhenCreating(settings);
  if (settings.values.length > 0 && settings.field === null)
    v.refuse('field', 'required', 'field is required when values are given (the field whose value qualifies a record)');
  return v.result(settings);
}

/** Reads a settings row as stored, over the defaults: a field added since (or dropped) never breaks a read. */
export function storedSettings<K extends AutomationCrm>(crm: K, stored: unknown): AutomationSettingsByCrm[K] {
  const defaults = crm === 'appointment' ? APPOINTMENT_CRM_DEFAULTS : RECORD_CRM_DEFAULTS;
  const known = Object.fromEntries(Object.entries(isObject(stored) ? stored : {}).filter(([key]) => key in defaults));
  return { ...defaults, ...known } as AutomationSettingsByCrm[K];
}

class FieldChecker {
  private readonly errors: FieldError[] = [];
  private readonly body: Record<string, unknown>;

  constructor(body: unknown, known: string[]) {
    if (!isObject(body)) {
      this.body = {};
      this.refuse('body', 'isObject', 'the body must be a JSON object');
      return;
    }
    this.body = body;
    for (const key of Object.keys(body)) {
      if (!known.includes(key) && !READ_ONLY_FIELDS.has(key)) this.refuse(key, 'whitelistValidation', `property ${key} should not exist`);
    }
  }

  result<T>(settings: T): Validated<T> {
    return this.errors.length === 0 ? { ok: true, settings } : { ok: false, errors: this.errors };
  }

  refuse(field: string, code: string, message: string): void {
    this.errors.push({ field, code, message });
  }

  boolean(field: string, current: boolean): boolean {
    const value = this.body[field];
    if (value === undefined) return current;
    if (typeof value === 'boolean') return value;
    this.refuse(field, 'isBoolean', `${field} must be true or false`);
    return current;
  }

  /** Distinct non-blank texts, trimmed. */
  texts(field: string, current: string[]): string[] {
    const value = this.body[field];
    if (value === undefined) return current;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() !== '')) {
      this.refuse(field, 'isArray', `${field} must be a list of non-empty texts`);
      return current;
    }
    if (value.length > MAX_LIST) {
      this.refuse(field, 'arrayMaxSize', `${field} must have at most ${MAX_LIST} items`);
      return current;
    }
    const texts = value as string[];
    if (texts.some((item) => item.length > MAX_TEXT)) {
      this.refuse(field, 'maxLength', `each of ${field} must be at most ${MAX_TEXT} characters`);
      return current;
    }
    return [...new Set(texts.map((item) => item.trim()))];
  }

  oneOfEach<T extends string>(field: string, allowed: readonly T[], current: T[]): T[] {
    const value = this.body[field];
    if (value === undefined) return current;
    if (!Array.isArray(value) || !value.every((item) => allowed.includes(item as T))) {
      this.refuse(field, 'isIn', `${field} must be a list of: ${allowed.join(', ')}`);
      return current;
    }
    return [...new Set(value as T[])];
  }

  oneOf<T extends string>(field: string, allowed: readonly T[], current: T): T {
    const value = this.body[field];
    if (value === undefined) return current;
    if (allowed.includes(value as T)) return value as T;
    this.refuse(field, 'isIn', `${field} must be one of: ${allowed.join(', ')}`);
    return current;
  }

  email(field: string, current: string | null): string | null {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null || value === '') return null;
    if (typeof value === 'string' && EMAIL.test(value.trim()) && value.trim().length <= 254) return value.trim();
    this.refuse(field, 'isEmail', `${field} must be an e-mail address or null`);
    return current;
  }

  optionalText(field: string, current: string | null): string | null {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null) return null;
    if (typeof value !== 'string' || value.trim() === '') {
      this.refuse(field, 'isString', `${field} must be a non-empty text or null`);
      return current;
    }
    if (value.length > MAX_TEXT) {
      this.refuse(field, 'maxLength', `${field} must be at most ${MAX_TEXT} characters`);
      return current;
    }
    return value.trim();
  }

  zohoField(field: string, current: string | null): string | null {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null || value === '') return null;
    if (typeof value === 'string' && ZOHO_FIELD.test(value)) return value;
    this.refuse(field, 'isZohoField', `${field} must be a Zoho field's API name (letters, digits, _) or null`);
    return current;
  }

  matchFields(field: string, current: { job_number?: string }): { job_number?: string } {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null) return {};
    if (!isObject(value)) {
      this.refuse(field, 'isObject', `${field} must be an object such as { "job_number": "Job_Number" }`);
      return current;
    }
    const out: { job_number?: string } = {};
    for (const [key, name] of Object.entries(value)) {
      if (key !== 'job_number') this.refuse(`${field}.${key}`, 'whitelistValidation', `property ${field}.${key} should not exist (only job_number)`);
      else if (name === null) continue;
      else if (typeof name === 'string' && ZOHO_FIELD.test(name)) out.job_number = name;
      else this.refuse(`${field}.${key}`, 'isZohoField', `${field}.${key} must be a Zoho field's API name (letters, digits, _)`);
    }
    return out;
  }

  /** An exact id: a text of digits, or a JSON number small enough to be exact. */
  digits(field: string, current: string | null): string | null {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null || value === '') return null;
    if (typeof value === 'string' && /^\d{1,30}$/.test(value)) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
    this.refuse(field, 'isDigits', `${field} must be an id of digits (best sent as a string) or null`);
    return current;
  }

  /** An ISO 8601 date and time, not in the future, as UTC ISO 8601. */
  pastTime(field: string, current: string | null): string | null {
    const value = this.body[field];
    if (value === undefined) return current;
    if (value === null || value === '') return null;
    const at = typeof value === 'string' && ISO_DATE_TIME.test(value.trim()) && isCalendarDate(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
    if (Number.isNaN(at)) {
      this.refuse(field, 'isIso8601', `${field} must be an ISO 8601 date and time with its offset (e.g. 2026-01-31T00:00:00Z) or null`);
      return current;
    }
    if (at > Date.now() + CLOCK_SKEW_MS) {
      this.refuse(field, 'maxDate', `${field} must not be in the future`);
      return current;
    }
    return new Date(at).toISOString();
  }

  ownerWhenCreating(settings: { create_projects: boolean; owner: string | null }): void {
    if (settings.create_projects && settings.owner === null && !this.errors.some((e) => e.field === 'owner')) {
      this.refuse('owner', 'required', 'owner (the default project owner) is required when create_projects is on');
    }
  }
}

/** The text's date exists (Date.parse takes 2026-02-30 for 2026-03-02). */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
