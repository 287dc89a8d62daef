import { createHash } from 'node:crypto';
import type { SimRequest, SimResponse } from '../common/sim-server.js';
import { REP, type MinifiedUser } from './zoho-types.js';

/** What Get Records reads of a stored record. */
export interface ListedRecord {
  id: string;
  fields: Record<string, unknown>;
  createdAt: number;
  modifiedAt: number;
  modifiedBy?: MinifiedUser;
}

export interface GetRecordsLimits {
  /** Records reachable by `page` numbers; past them only `page_token` goes on (DISCRETE_PAGINATION_LIMIT_EXCEEDED). */
  pageRecordsLimit: number;
  /** Records reachable through page tokens (PAGINATION_LIMIT_EXCEEDED past them). */
  tokenRecordsLimit: number;
}

/** crm-oas v8 record.yaml: `per_page` 1 to 200, at most 50 `fields`, and (Zoho's docs) at most 100 `ids`. */
const MAX_PER_PAGE = 200;
const MAX_FIELDS = 50;
const MAX_IDS = 100;
const SORT_FIELDS = ['id', 'Created_Time', 'Modified_Time'] as const;

const error = (status: number, code: string, message: string, details: Record<string, unknown>): SimResponse => ({
  status,
  body: { code, details, message, status: 'error' },
});

/** Zoho writes times as ISO 8601 with an offset and no milliseconds. */
export function zohoTime(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** A page token names its position and is bound to the request's other parameters, as Zoho's is. */
function bindingOf(req: SimRequest): string {
  const q = req.query;
  const bound = ['fields', 'ids', 'sort_by', 'sort_order', 'per_page', 'cvid'].map((k) => `${k}=${q.get(k) ?? ''}`);
  bound.push(`ims=${String(req.headers['if-modified-since'] ?? '')}`);
  return createHash('sha256').update(bound.join('&')).digest('hex').slice(0, 16);
}

function compareBy(sortBy: (typeof SORT_FIELDS)[number]): (a: ListedRecord, b: ListedRecord) => number {
  const byId = (a: ListedRecord, b: ListedRecord) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);
  if (sortBy === 'id') return byId;
  const key = sortBy === 'Created_Time' ? 'createdAt' : 'modifiedAt';
  return (a, b) => a[key] - b[key] || byId(a, b);
}

/**
 * GET /crm/v8/{module} (crm-oas v8 `record.yaml`, operation getRecords; the SDK's GetRecordsParam and
 * GetRecordsHeader): `fields` required, `ids`, `sort_by`/`sort_order`, `page`/`per_page` over the first 2,000
 * records and `page_token` beyond, the `If-Modified-Since` header (304 with no body when nothing changed since).
 */
export function getRecords(req: SimRequest, all: ListedRecord[], limits: GetRecordsLimits): SimResponse {
  const q = req.query;
  const fields = (q.get('fields') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.length === 0) return error(400, 'REQUIRED_PARAM_MISSING', 'required param is missing', { param_name: 'fields' });
  if (fields.length > MAX_FIELDS) return error(400, 'LIMIT_EXCEEDED', 'limit exceeded', { limit: MAX_FIELDS, param_name: 'fields' });

  const perPage = Number(q.get('per_page') ?? MAX_PER_PAGE);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
    return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'per_page' });
  }
  const sortBy = (q.get('sort_by') ?? 'id') as (typeof SORT_FIELDS)[number];
  if (!SORT_FIELDS.includes(sortBy)) {
    return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'sort_by', supported_values: [...SORT_FIELDS] });
  }
  const sortOrder = q.get('sort_order') ?? 'desc';
  if (sortOrder !== 'asc' && sortOrder !== 'desc') return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'sort_order' });

  let records = all;
  const ids = q.get('ids');
  if (ids !== null) {
    const wanted = ids.split(',').map((id) => id.trim());
    if (wanted.length > MAX_IDS) return error(400, 'LIMIT_EXCEEDED', 'limit exceeded', { limit: MAX_IDS, param_name: 'ids' });
    if (wanted.some((id) => !/^\d{1,19}$/.test(id))) return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'ids' });
    records = records.filter((r) => wanted.includes(r.id));
  }
  const since = req.headers['if-modified-since'];
  if (since !== undefined) {
    const at = Date.parse(String(since));
    if (Number.isNaN(at)) return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'If-Modified-Since' });
    records = records.filter((r) => r.modifiedAt > at);
    if (records.length === 0) return { status: 304 };
  }
  if (records.length === 0) return { status: 204 };

  const binding = bindingOf(req);
  const token = q.get('page_token');
  let start: number;
  if (token) {
    const [offset, bound] = Buffer.from(token, 'base64url').toString().split(':');
    if (bound !== binding) {
      return error(400, 'TOKEN_BOUND_DATA_MISMATCH', 'The page_token given seems to be invalid or input param is added or altered or deleted', {
        param_name: 'page_token',
      });
    }
    start = Number(offset);
    if (start >= limits.tokenRecordsLimit) {
      return error(400, 'PAGINATION_LIMIT_EXCEEDED', `You can only get upto ${limits.tokenRecordsLimit} records using page_token param`, {
        param_name: 'page_token',
      });
    }
  } else {
    const page = Number(q.get('page') ?? 1);
    if (!Number.isInteger(page) || page < 1) return error(400, 'INVALID_DATA', 'invalid data', { param_name: 'page' });
    start = (page - 1) * perPage;
    if (start >= limits.pageRecordsLimit) {
      return error(400, 'DISCRETE_PAGINATION_LIMIT_EXCEEDED', `You can only get the first ${limits.pageRecordsLimit} records without using page_token param`, {
        limit: limits.pageRecordsLimit,
      });
    }
  }

  const sorted = [...records].sort(compareBy(sortBy));
  if (sortOrder === 'desc') sorted.reverse();
  const slice = sorted.slice(start, start + perPage);
  const more = start + perPage < sorted.length;
  const wanted = new Set(fields);
  const data = slice.map((r) => {
    // Modified_By: crm-oas v8.0/record.json (a Minified_User).
    const full: Record<string, unknown> = {
      ...r.fields,
      Created_Time: zohoTime(r.createdAt),
      Modified_Time: zohoTime(r.modifiedAt),
      Modified_By: r.modifiedBy ?? REP,
    };
    return { id: r.id, ...Object.fromEntries(Object.entries(full).filter(([key]) => wanted.has(key))) };
  });
  const info = {
    call: false,
    per_page: perPage,
    count: slice.length,
    page: Math.floor(start / perPage) + 1,
    sort_by: sortBy,
    sort_order: sortOrder,
    more_records: more,
    email: false,
    next_page_token: more ? Buffer.from(`${start + perPage}:${binding}`).toString('base64url') : null,
    previous_page_token: null,
    page_token_expiry: more ? zohoTime(Date.now() + 24 * 3600 * 1000) : null,
  };
  return { status: 200, body: { data, info } };
}
