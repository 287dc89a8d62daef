import type { SimResponse } from '../common/sim-server.js';

/** A record as the search sees it: its id and fields. */
export interface SearchableRecord {
  id: string;
  fields: Record<string, unknown>;
}

const error = (status: number, code: string, message: string, details: Record<string, unknown> = {}): SimResponse => ({
  status,
  body: { code, details, message, status: 'error' },
});

/**
 * `GET /crm/v8/{module}/search` as Zoho's v8 OpenAPI file (module_search.yaml) describes it: one of `criteria`,
 * `email`, `phone`, `word` (that priority when several are given), `fields`, `page`, `per_page` (at most 200);
 * 204 with no body when nothing matches. `equals` behaves like `contains` on text, as Zoho documents; `email`
 * searches every e-mail field and `phone` every phone field, by contained value; `word` at least 2 characters.
 */
export function searchRecords(records: SearchableRecord[], query: URLSearchParams, maxPerPage = 200): SimResponse {
  let matches: (record: SearchableRecord) => boolean;
  const criteria = query.get('criteria');
  const email = query.get('email');
  const phone = query.get('phone');
  const word = query.get('word');
  if (criteria !== null) {
    const parsed = parseCriteria(criteria);
    if (!parsed) return error(400, 'INVALID_QUERY', 'Invalid query formed', { reason: 'invalid criteria' });
    matches = parsed;
  } else if (email !== null) {
    matches = (r) => fieldsNamed(r, /email/i).some((v) => v.toLowerCase().includes(email.toLowerCase()));
  } else if (phone !== null) {
    if (!/^[+]?[0-9\s\-().]{3,50}$/.test(phone)) return error(400, 'INVALID_DATA', 'invalid phone', { param_name: 'phone' });
    const digits = phone.replace(/\D/g, '');
    matches = (r) => fieldsNamed(r, /phone|mobile/i).some((v) => v.replace(/\D/g, '').includes(digits));
  } else if (word !== null) {
    if (word.trim().length < 2) return error(400, 'INVALID_QUERY', 'the word must be at least 2 characters', { param_name: 'word' });
    matches = (r) => Object.values(r.fields).some((v) => textOf(v).toLowerCase().includes(word.toLowerCase()));
  } else {
    return error(400, 'EXPECTED_PARAM_MISSING', 'one of the expected parameter is missing', { param_names: ['criteria', 'email', 'phone', 'word'] });
  }
  const perPage = Math.min(Number(query.get('per_page') ?? 200) || 200, maxPerPage);
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  const found = records.filter(matches);
  const slice = found.slice((page - 1) * perPage, page * perPage);
  if (slice.length === 0) return { status: 204 };
  const fields = query.get('fields')?.split(',').filter(Boolean);
  const data = slice.map((r) => ({ id: r.id, ...(fields ? Object.fromEntries(fields.filter((f) => f in r.fields).map((f) => [f, r.fields[f]])) : r.fields) }));
  return { status: 200, body: { data, info: { per_page: perPage, count: data.length, page, more_records: found.length > page * perPage } } };
}

function fieldsNamed(record: SearchableRecord, name: RegExp): string[] {
  return Object.entries(record.fields)
    .filter(([field]) => name.test(field))
    .map(([, value]) => textOf(value));
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && 'name' in value) return textOf((value as { name: unknown }).name);
  return '';
}

/** `(Field:op:value)` conditions joined by `and` / `or` (evaluated left to right); values unescaped. */
function parseCriteria(text: string): ((record: SearchableRecord) => boolean) | null {
  const conditions: Array<{ join: 'and' | 'or'; test: (r: SearchableRecord) => boolean }> = [];
  const pattern = /\(\s*([A-Za-z0-9_]+):(equals|starts_with|not_equal):((?:\\.|[^\\)])*)\)/g;
  let rest = text.trim().replace(/^\(\s*(\(.*\))\s*\)$/, '$1');
  let join: 'and' | 'or' = 'and';
  for (;;) {
    const match = new RegExp(pattern.source).exec(rest);
    if (!match || match.index !== 0) return null;
    const [whole, field, op, raw] = match;
    const value = raw.replace(/\\(.)/g, '$1').toLowerCase();
    const test = (r: SearchableRecord) => {
      const raw = r.fields[field];
      // A lookup ({ id, name }) is compared on its id.
      if (raw && typeof raw === 'object' && 'id' in raw) return op === 'not_equal' ? String(raw.id) !== value : String(raw.id) === value;
      const actual = textOf(raw).toLowerCase();
      if (op === 'starts_with') return actual.startsWith(value);
      if (op === 'not_equal') return actual !== value;
      return actual.includes(value);
    };
    conditions.push({ join, test });
    rest = rest.slice(whole.length).trim();
    if (rest === '') break;
    const next = /^(and|or)\s*/i.exec(rest);
    if (!next) return null;
    join = next[1].toLowerCase() as 'and' | 'or';
    rest = rest.slice(next[0].length);
  }
  return (r) => conditions.reduce((ok, c, i) => (i === 0 ? c.test(r) : c.join === 'and' ? ok && c.test(r) : ok || c.test(r)), true);
}
