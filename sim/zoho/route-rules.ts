/**
 * One row per route of Zoho's v8 API that crm-sync calls (and the few more the simulator serves): the method and path,
 * the keys and parameters Zoho requires, their types and limits, the error Zoho answers when one is broken (its code,
 * where it sits in the body, its status) and the crm-oas file the row is read from (zoho/crm-oas, `v8.0/<name>.json`).
 * ZohoSim answers a request that breaks a row with the row's error before its handler runs, and a request under
 * `/crm/v8` that no row describes with Zoho's 404 INVALID_URL_PATTERN: a call the client adds without a row fails.
 * docs/zoho-crm.md's ledger lists the same calls.
 */
import type { SimRequest, SimResponse } from '../common/sim-server.js';
import { zohoError } from './zoho-types.js';

/** Where Zoho puts an error: the body itself, or the failed item of the request's list (`data[i]`, `watch[i]`). */
export type ErrorShape = 'top' | 'data[i]' | 'watch[i]';

/** An error as a row names it. */
export interface RuleError {
  status: number;
  code: string;
  message: string;
  shape: ErrorShape;
}

/** One requirement of a row: what it asks (said in words, for the docs and tests), how a request breaks it, the error. */
export interface RuleCheck {
  rule: string;
  /** The details of the error when `req` breaks the requirement (the key or parameter it names), else null. */
  broken: (req: SimRequest) => Record<string, unknown> | null;
  error: RuleError;
}

export interface RouteRule {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as the simulator routes it (`:name` segments). */
  path: string;
  /** The client's labels of this call (the `endpoint` of ZohoClient's requests, as zoho-scopes.ts lists them). */
  calls: readonly string[];
  /** The crm-oas file and operation (or, where crm-oas has none, Zoho's page) the row is read from. */
  source: string;
  checks: readonly RuleCheck[];
}

const top = (status: number, code: string, message: string): RuleError => ({ status, code, message, shape: 'top' });
const MISSING_PARAM = top(400, 'REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing');
const INVALID_PARAM = top(400, 'INVALID_DATA', 'invalid data');
const LIMIT_PARAM = top(400, 'LIMIT_EXCEEDED', 'limit exceeded');
const BAD_BODY = top(400, 'INVALID_DATA', 'body is not a valid data array');

/** A query parameter the call cannot go without. */
function requiredParam(name: string, error: RuleError = MISSING_PARAM): RuleCheck {
  return { rule: `${name} required`, broken: (req) => (req.query.get(name) ? null : { param_name: name }), error };
}

/** One of several query parameters. */
function oneOfParams(names: string[], error: RuleError): RuleCheck {
  return {
    rule: `one of ${names.join(', ')}`,
    broken: (req) => (names.some((n) => req.query.get(n) !== null) ? null : { param_names: names }),
    error,
  };
}

/** An integer query parameter within [min, max] when given. */
function intParam(name: string, min: number, max: number): RuleCheck {
  return {
    rule: `${name} an integer ${min}–${max}`,
    broken: (req) => {
      const text = req.query.get(name);
      if (text === null) return null;
      const value = Number(text);
      return Number.isInteger(value) && value >= min && value <= max ? null : { param_name: name, minimum: min, maximum: max };
    },
    error: INVALID_PARAM,
  };
}

/** A comma-separated parameter of at most `max` values. */
function listParam(name: string, max: number): RuleCheck {
  return {
    rule: `${name} at most ${max} values`,
    broken: (req) => ((req.query.get(name) ?? '').split(',').filter(Boolean).length > max ? { param_name: name, limit: max } : null),
    error: LIMIT_PARAM,
  };
}

/** A page of a list that reaches past the `limit`th record (`page` × `per_page`). */
function pageWithin(limit: number, error: RuleError): RuleCheck {
  return {
    rule: `page × per_page within the first ${limit} records`,
    broken: (req) => {
      const page = Number(req.query.get('page') ?? 1);
      const perPage = Number(req.query.get('per_page') ?? 200);
      return Number.isFinite(page) && Number.isFinite(perPage) && page * perPage > limit ? { limit } : null;
    },
    error,
  };
}

/** The JSON body's list (`data` or `watch`) with `min`–`max` items. */
function bodyList(key: 'data' | 'watch', min: number, max: number): RuleCheck[] {
  const list = (req: SimRequest) => (req.json as Record<string, unknown> | undefined)?.[key];
  return [
    {
      rule: `${key}[] required`,
      broken: (req) => (Array.isArray(list(req)) && (list(req) as unknown[]).length >= min ? null : { api_name: key }),
      error: key === 'data' ? BAD_BODY : top(400, 'MANDATORY_NOT_FOUND', 'required field not found'),
    },
    {
      rule: `${key}[] at most ${max}`,
      broken: (req) => (Array.isArray(list(req)) && (list(req) as unknown[]).length > max ? { api_name: key, limit: max } : null),
      error: LIMIT_PARAM,
    },
  ];
}

/** Keys every item of the body's list must have (MANDATORY_NOT_FOUND inside the failed item). */
function itemKeys(key: 'data' | 'watch', keys: string[], status: number): RuleCheck {
  return {
    rule: `${key}[].${keys.join(', ')} required`,
    broken: (req) => {
      const items = (req.json as Record<string, unknown> | undefined)?.[key];
      if (!Array.isArray(items)) return null;
      for (const [index, item] of items.entries()) {
        const missing = keys.find((k) => {
          const value = (item as Record<string, unknown> | null)?.[k];
          return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
        });
        if (missing) return { api_name: missing, json_path: `$.${key}[${index}].${missing}`, index };
      }
      return null;
    },
    error: { status, code: 'MANDATORY_NOT_FOUND', message: 'required field not found', shape: key === 'data' ? 'data[i]' : 'watch[i]' },
  };
}

/** A JSON body key the call cannot go without. */
function bodyText(key: string): RuleCheck {
  return {
    rule: `${key} required`,
    broken: (req) => {
      const value = (req.json as Record<string, unknown> | undefined)?.[key];
      return typeof value === 'string' && value.trim() !== '' ? null : { param_name: key };
    },
    error: MISSING_PARAM,
  };
}

/** The whole request body at most `bytes`. */
function bodyBytes(bytes: number, error: RuleError): RuleCheck {
  return { rule: `request body at most ${bytes / 1024 / 1024} MB`, broken: (req) => (req.body.length > bytes ? { limit: bytes } : null), error };
}

const SEARCH_CHECKS = [
  oneOfParams(['criteria', 'email', 'phone', 'word'], top(400, 'EXPECTED_PARAM_MISSING', 'one of the expected parameter is missing')),
  intParam('page', 1, 2000),
  intParam('per_page', 1, 200),
  // Zoho's Search Records page: "you can fetch only the first 2000 records", LIMIT_REACHED past them.
  pageWithin(2000, top(400, 'LIMIT_REACHED', 'the search reaches only the first 2000 records')),
];
const WATCH_ITEM = ['channel_id', 'notify_url', 'events'];
const SIZE_100_MB = 100 * 1024 * 1024;

/**
 * Most specific first: a request takes the first row whose method and path match (`/Products/search` before
 * `/:module/search` before `/:module/:id`).
 */
export const ZOHO_ROUTE_RULES: readonly RouteRule[] = [
  {
    method: 'GET',
    path: '/crm/v8/org/taxes',
    calls: ['GET /org/taxes'],
    source: "Zoho's Get Taxes page and its SDKs' TaxesOperations.getTaxes (no crm-oas v8 file: unconfirmed)",
    checks: [],
  },
  { method: 'GET', path: '/crm/v8/org', calls: ['GET /org'], source: 'v8.0/org.json (Get Org)', checks: [] },
  {
    method: 'GET',
    path: '/crm/v8/users',
    calls: ['GET /users?type=CurrentUser'],
    source: 'v8.0/users.json (Get Users, type CurrentUser)',
    checks: [requiredParam('type', INVALID_PARAM)],
  },
  {
    method: 'GET',
    path: '/crm/v8/settings/fields',
    calls: ['GET /settings/fields'],
    source: 'v8.0/fields.json (Get Fields)',
    checks: [requiredParam('module')],
  },
  {
    method: 'GET',
    path: '/crm/v8/settings/pipeline',
    calls: ['GET /settings/pipeline'],
    source: 'v8.0/pipeline.json (get pipelines)',
    checks: [requiredParam('layout_id')],
  },
  {
    method: 'GET',
    path: '/crm/v8/settings/layouts',
    calls: ['GET /settings/layouts'],
    source: 'v8.0/layouts.json (Get Layouts)',
    checks: [requiredParam('module')],
  },
  { method: 'GET', path: '/crm/v8/settings/modules', calls: ['GET /settings/modules'], source: 'v8.0/modules.json (Get Modules)', checks: [] },
  {
    method: 'POST',
    path: '/crm/v8/actions/watch',
    calls: ['POST /actions/watch'],
    source: "v8.0/notifications.json (Enable Notifications; Zoho's Enable Notifications page: channel_id, events, notify_url mandatory)",
    checks: [...bodyList('watch', 1, 100), itemKeys('watch', WATCH_ITEM, 202)],
  },
  {
    method: 'PUT',
    path: '/crm/v8/actions/watch',
    calls: [],
    source: 'v8.0/notifications.json (Update Notifications)',
    checks: [...bodyList('watch', 1, 100), itemKeys('watch', WATCH_ITEM, 202)],
  },
  {
    method: 'PATCH',
    path: '/crm/v8/actions/watch',
    calls: ['PATCH /actions/watch'],
    source:
      "v8.0/notifications.json (PATCH; the YAML's updateNotificationInfo: required channel_id, notify_url, events; Zoho's Update Specific Information of a Notification page)",
    checks: [...bodyList('watch', 1, 100), itemKeys('watch', WATCH_ITEM, 202)],
  },
  { method: 'GET', path: '/crm/v8/actions/watch', calls: ['GET /actions/watch'], source: 'v8.0/notifications.json (Get Notifications)', checks: [] },
  {
    method: 'DELETE',
    path: '/crm/v8/actions/watch',
    calls: ['DELETE /actions/watch'],
    source: 'v8.0/notifications.json (Delete Notification)',
    checks: [requiredParam('channel_ids')],
  },
  { method: 'POST', path: '/crm/v8/coql', calls: ['POST /coql'], source: 'v8.0/coql.json (select_query)', checks: [bodyText('select_query')] },
  { method: 'GET', path: '/crm/v8/Products/search', calls: ['GET /Products/search'], source: 'v8.0/module_search.json (Search module)', checks: SEARCH_CHECKS },
  { method: 'GET', path: '/crm/v8/Quotes/search', calls: [], source: 'v8.0/module_search.json (Search module)', checks: SEARCH_CHECKS },
  { method: 'GET', path: '/crm/v8/:module/search', calls: ['GET /{module}/search'], source: 'v8.0/module_search.json (Search module)', checks: SEARCH_CHECKS },
  {
    method: 'POST',
    path: '/crm/v8/Notes',
    calls: ['POST /Notes'],
    source: 'v8.0/notes.json (Create Notes)',
    checks: [...bodyList('data', 1, 100), itemKeys('data', ['Parent_Id'], 400)],
  },
  {
    method: 'POST',
    path: '/crm/v8/Quotes',
    calls: ['POST /Quotes'],
    source: 'v8.0/record.json (Create Records)',
    checks: [...bodyList('data', 1, 100)],
  },
  {
    method: 'PUT',
    path: '/crm/v8/Quotes/:id',
    calls: ['PUT /Quotes/{id}'],
    source: 'v8.0/record.json (Update Record; 412 on If-Unmodified-Since, its error in data[0])',
    checks: bodyList('data', 1, 1),
  },
  {
    method: 'PUT',
    path: '/crm/v8/Deals/:id',
    calls: ['PUT /Deals/{id}'],
    source: 'v8.0/record.json (Update Record; 412 on If-Unmodified-Since, its error in data[0])',
    checks: bodyList('data', 1, 1),
  },
  {
    method: 'GET',
    path: '/crm/v8/:module/:id/Attachments/:attachment',
    calls: [],
    source: 'v8.0/download_attachments.json (Download Attachment)',
    checks: [],
  },
  {
    method: 'GET',
    path: '/crm/v8/:module/:id/Attachments',
    calls: ['GET /{module}/{id}/Attachments'],
    source: 'v8.0/attachments.json (Get Attachments)',
    checks: [requiredParam('fields'), intParam('per_page', 1, 200)],
  },
  {
    method: 'POST',
    path: '/crm/v8/:module/:id/Attachments',
    calls: ['POST /{module}/{id}/Attachments'],
    source: "v8.0/attachments.json (Upload Attachment; Zoho's Upload an Attachment page: the request at most 100 MB)",
    checks: [bodyBytes(SIZE_100_MB, top(413, 'FILE_SIZE_MORE_THAN_ALLOWED_SIZE', 'Please check if the size of the file is in the correct range'))],
  },
  {
    method: 'GET',
    path: '/crm/v8/:module/:id/Notes',
    calls: ['GET /{module}/{id}/Notes'],
    source: 'v8.0/related_records.json (Get Related Records, Notes)',
    checks: [requiredParam('fields'), intParam('per_page', 1, 200)],
  },
  {
    method: 'GET',
    path: '/crm/v8/:module/:id',
    calls: ['GET /{module}/{id}'],
    source: 'v8.0/record.json (Get Record)',
    checks: [],
  },
  {
    method: 'GET',
    path: '/crm/v8/:module',
    calls: ['GET /{module}', 'GET /{module}?ids'],
    source: 'v8.0/record.json (Get Records; fields required in v8, ids at most 100, per_page at most 200)',
    checks: [requiredParam('fields'), intParam('per_page', 1, 200), listParam('ids', 100)],
  },
];

/** A path pattern as a regular expression (the simulator's `:name` segments: one segment each). */
function patternOf(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}$`);
}

const patterns = new WeakMap<RouteRule, RegExp>();

/** The row a request falls under: the first whose method and path match. */
export function ruleFor(rules: readonly RouteRule[], method: string, path: string): RouteRule | undefined {
  return rules.find((rule) => {
    if (rule.method !== method) return false;
    let pattern = patterns.get(rule);
    if (!pattern) patterns.set(rule, (pattern = patternOf(rule.path)));
    return pattern.test(path);
  });
}

/** The row's first broken requirement as Zoho answers it; null when the request keeps the row. */
export function breach(rule: RouteRule, req: SimRequest): SimResponse | null {
  for (const check of rule.checks) {
    const details = check.broken(req);
    if (!details) continue;
    const { status, code, message, shape } = check.error;
    if (shape === 'top') return { status, body: zohoError(code, message, details) };
    // The failed item's error in its place in the list; the items before it are not written either here.
    const list = shape === 'data[i]' ? 'data' : 'watch';
    return { status, body: { [list]: [zohoError(code, message, details)] } };
  }
  return null;
}

/** Zoho's answer to a path its API does not have. */
export const noSuchRoute = (): SimResponse => ({
  status: 404,
  body: zohoError('INVALID_URL_PATTERN', 'Please check if the URL trying to access is a correct one'),
});
