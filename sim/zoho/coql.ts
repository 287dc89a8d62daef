import type { SimResponse } from '../common/sim-server.js';

/** A record as COQL reads it: its id and fields, lookups as `{ id, name }`. */
export interface QueryableRecord {
  id: string;
  fields: Record<string, unknown>;
}

/** A module's records and the API names of its fields (those no record holds yet included). */
export interface QueryableModule {
  records: QueryableRecord[];
  fields: readonly string[];
}

/**
 * `POST /crm/v8/coql` `{"select_query": "…"}` as crm-oas `v8.0/coql/coql.yaml` (operation executeCOQLQuery) and Zoho's
 * v8 "Query API - Limitations" page describe it, for the forms crm-sync sends: `select <fields> from <Module> where
 * <conditions> [order by <field> [asc|desc]] [limit <n> [offset <m>]]`, conditions joined by `and` / `or` (brackets
 * around each pair, as Zoho asks), each `<field> = | != | like | in | not in | is null | is not null`. Text values in
 * single quotes, a quote inside doubled (`'1'' 2'`) and a backslash no escape (Zoho's Kaizen #171, "FAQs on COQL API"),
 * `like` with `%`. The answer: 200 `{"data": […], "info": {"count", "more_records"}}`,
 * 204 when nothing matches (no search-index lag: the Query API reads the records as written); 400 `SYNTAX_ERROR`,
 * `INVALID_QUERY` (`column_name`, `module`), `LIMIT_EXCEEDED` (more than 2,000 a call, 50 values in `in`, 25
 * conditions, 50 selected fields). Lookups come back as `{ "id" }` only. Text is compared ignoring case (Zoho's
 * material does not say; the ignoring one is the one that can trip a caller, so a caller compares exactly itself).
 */
export function runCoql(body: unknown, moduleOf: (module: string) => QueryableModule | null): SimResponse {
  const query = (body as { select_query?: unknown } | undefined)?.select_query;
  if (typeof query !== 'string' || query.trim() === '') {
    return err('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'select_query' });
  }
  const parsed = parse(query);
  if ('code' in parsed) return err(parsed.code, parsed.message, parsed.details);
  const target = moduleOf(parsed.module);
  if (!target) return err('INVALID_QUERY', 'invalid query formed', { module: parsed.module });
  const { records } = target;
  if (parsed.fields.length > MAX_FIELDS) return err('LIMIT_EXCEEDED', `at most ${MAX_FIELDS} fields can be selected`, { limit: MAX_FIELDS });
  if (parsed.conditions > MAX_CONDITIONS) return err('LIMIT_EXCEEDED', `at most ${MAX_CONDITIONS} criteria are allowed`, { limit: MAX_CONDITIONS });
  if (parsed.limit > MAX_LIMIT) return err('LIMIT_EXCEEDED', `the limit must be at most ${MAX_LIMIT}`, { limit: MAX_LIMIT });
  // Field API names are exact: `product_code` is not `Product_Code`.
  const known = new Set(['id', ...target.fields, ...records.flatMap((r) => Object.keys(r.fields))]);
  for (const column of [...parsed.fields, ...parsed.columns]) {
    if (!known.has(column.split('.')[0])) return err('INVALID_QUERY', 'invalid query formed', { column_name: column, clause: 'select' });
  }
  let found = records.filter((r) => parsed.where(r));
  found = [...found].sort((a, b) => compareIds(a.id, b.id));
  if (parsed.orderBy) {
    const { field, desc } = parsed.orderBy;
    found.sort((a, b) => (desc ? -1 : 1) * String(valueOf(a, field) ?? '').localeCompare(String(valueOf(b, field) ?? '')));
  }
  const page = found.slice(parsed.offset, parsed.offset + parsed.limit);
  if (page.length === 0) return { status: 204 };
  const data = page.map((r) => Object.fromEntries(['id', ...parsed.fields].map((f) => [f, shown(valueOf(r, f))])));
  return { status: 200, body: { data, info: { count: data.length, more_records: found.length > parsed.offset + parsed.limit } } };
}

const MAX_LIMIT = 2000;
const DEFAULT_LIMIT = 200;
const MAX_IN_VALUES = 50;
const MAX_CONDITIONS = 25;
const MAX_FIELDS = 50;

type Test = (record: QueryableRecord) => boolean;
interface Parsed {
  module: string;
  fields: string[];
  /** The columns the conditions and the order name. */
  columns: string[];
  where: Test;
  conditions: number;
  orderBy: { field: string; desc: boolean } | null;
  limit: number;
  offset: number;
}
interface Failure {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

function err(code: string, message: string, details: Record<string, unknown> = {}): SimResponse {
  return { status: 400, body: { code, details, message, status: 'error' } };
}

const syntax = (near: string): Failure => ({ code: 'SYNTAX_ERROR', message: `error at or near '${near.slice(0, 40)}'`, details: { near: near.slice(0, 40) } });

/** Tokens: words, quoted texts, numbers, punctuation. */
function tokenize(text: string): string[] | Failure {
  const tokens: string[] = [];
  // A quoted text runs to the first quote not doubled; a backslash is a character like any other (Kaizen #171).
  const pattern = /\s*(?:('(?:''|[^'])*')|(!=|<=|>=|[=<>(),])|([A-Za-z0-9_.$%-]+))/y;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) return syntax(text.slice(at));
    tokens.push(match[1] ?? match[2] ?? match[3]);
    at = pattern.lastIndex;
  }
  return tokens;
}

function parse(query: string): Parsed | Failure {
  const tokens = tokenize(query);
  if (!Array.isArray(tokens)) return tokens;
  let i = 0;
  const peek = () => tokens[i]?.toLowerCase();
  const take = () => tokens[i++];
  if (peek() !== 'select') return syntax(tokens[0] ?? '');
  i++;
  const fields: string[] = [];
  for (;;) {
    const field = take();
    if (!field || !/^[A-Za-z][\w.]*$/.test(field)) return syntax(field ?? 'end of query');
    fields.push(field);
    if (peek() !== ',') break;
    i++;
  }
  if (peek() !== 'from') return syntax(tokens[i] ?? 'end of query');
  i++;
  const module = take();
  if (!module) return syntax('end of query');
  const columns: string[] = [];
  let conditions = 0;
  let where: Test = () => true;

  const condition = (): Test | Failure => {
    if (peek() === '(') {
      i++;
      const inner = expression();
      if ('code' in inner) return inner;
      if (take() !== ')') return syntax(tokens[i - 1] ?? 'end of query');
      return inner;
    }
    const field = take();
    if (!field || !/^[A-Za-z][\w.]*$/.test(field)) return syntax(field ?? 'end of query');
    columns.push(field);
    conditions++;
    const op = peek();
    if (op === 'is') {
      i++;
      const not = peek() === 'not';
      if (not) i++;
      if (peek() !== 'null') return syntax(tokens[i] ?? 'end of query');
      i++;
      return (r) => isNull(valueOf(r, field)) !== not;
    }
    if (op === 'not' || op === 'in') {
      const negated = op === 'not';
      if (negated) i++;
      if (peek() !== 'in') return syntax(tokens[i] ?? 'end of query');
      i++;
      if (take() !== '(') return syntax(tokens[i - 1] ?? 'end of query');
      const values: string[] = [];
      for (;;) {
        const value = literal(take());
        if (value === null) return syntax(tokens[i - 1] ?? 'end of query');
        values.push(value.toLowerCase());
        const next = take();
        if (next === ')') break;
        if (next !== ',') return syntax(next ?? 'end of query');
      }
      if (values.length > MAX_IN_VALUES) {
        return { code: 'LIMIT_EXCEEDED', message: `at most ${MAX_IN_VALUES} values in an in clause`, details: { limit: MAX_IN_VALUES } };
      }
      return (r) => values.includes(textOf(valueOf(r, field)).toLowerCase()) !== negated;
    }
    if (op === '=' || op === '!=' || op === 'like') {
      i++;
      const value = literal(take());
      if (value === null) return syntax(tokens[i - 1] ?? 'end of query');
      const wanted = value.toLowerCase();
      if (op === 'like') {
        const pattern = new RegExp(`^${wanted.split('%').map(escapeRegExp).join('.*')}$`, 's');
        return (r) => pattern.test(textOf(valueOf(r, field)).toLowerCase());
      }
      return (r) => (textOf(valueOf(r, field)).toLowerCase() === wanted) === (op === '=');
    }
    return syntax(tokens[i] ?? 'end of query');
  };

  const expression = (): Test | Failure => {
    let left = condition();
    if ('code' in left) return left;
    while (peek() === 'and' || peek() === 'or') {
      const join = take().toLowerCase();
      const right = condition();
      if ('code' in right) return right;
      const [l, r]: [Test, Test] = [left, right];
      left = join === 'and' ? (rec) => l(rec) && r(rec) : (rec) => l(rec) || r(rec);
    }
    return left;
  };

  if (peek() === 'where') {
    i++;
    const parsed = expression();
    if ('code' in parsed) return parsed;
    where = parsed;
  }
  let orderBy: Parsed['orderBy'] = null;
  if (peek() === 'order') {
    i++;
    if (peek() !== 'by') return syntax(tokens[i] ?? 'end of query');
    i++;
    const field = take();
    if (!field) return syntax('end of query');
    columns.push(field);
    const direction = peek();
    if (direction === 'asc' || direction === 'desc') i++;
    orderBy = { field, desc: direction === 'desc' };
  }
  let limit = DEFAULT_LIMIT;
  let offset = 0;
  if (peek() === 'limit') {
    i++;
    const first = Number(take());
    if (!Number.isInteger(first) || first < 1) return syntax(tokens[i - 1] ?? 'end of query');
    limit = first;
    if (peek() === ',') {
      // `limit offset, count`
      i++;
      const count = Number(take());
      if (!Number.isInteger(count) || count < 1) return syntax(tokens[i - 1] ?? 'end of query');
      [offset, limit] = [first, count];
    } else if (peek() === 'offset') {
      i++;
      const value = Number(take());
      if (!Number.isInteger(value) || value < 0) return syntax(tokens[i - 1] ?? 'end of query');
      offset = value;
    }
  }
  if (i < tokens.length) return syntax(tokens[i]);
  return { module, fields, columns, where, conditions, orderBy, limit, offset };
}

/** A quoted text (a doubled quote inside is one quote, Kaizen #171) or a bare number; null for anything else. */
function literal(token: string | undefined): string | null {
  if (token === undefined) return null;
  if (/^'.*'$/s.test(token)) return token.slice(1, -1).replace(/''/g, "'");
  return /^-?\d+(\.\d+)?$/.test(token) ? token : null;
}

/** A field's value; `Lookup.id` reads a lookup's id. */
function valueOf(record: QueryableRecord, field: string): unknown {
  if (field === 'id') return record.id;
  const [name, part] = field.split('.');
  const value = record.fields[name];
  if (part === undefined) return value;
  return value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
}

/** A lookup is compared on its id. */
function textOf(value: unknown): string {
  if (value && typeof value === 'object' && 'id' in value) return String((value as { id: unknown }).id);
  return value === null || value === undefined ? '' : String(value);
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

/** COQL answers a lookup as `{ "id" }` alone. */
function shown(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'id' in value) return { id: String((value as { id: unknown }).id) };
  return value ?? null;
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
