/**
 * A small but real SOQL: SELECT fields (relationship paths included) or COUNT(), FROM one object, WHERE with AND, OR,
 * NOT and parentheses, =, !=, <>, <, <=, >, >=, LIKE, IN and NOT IN, ORDER BY several fields with ASC/DESC and
 * NULLS FIRST/LAST, LIMIT and OFFSET (SOQL and SOSL Reference, SELECT:
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select.htm).
 * It refuses what Salesforce refuses, with its error codes, so a client that builds a query wrongly fails here too.
 */
import { to18 } from './ids.js';
import type { SfField, SfObject, SfSchema } from './schema.js';

export class SoqlError extends Error {
  constructor(
    readonly errorCode: 'MALFORMED_QUERY' | 'INVALID_FIELD' | 'INVALID_TYPE' | 'INVALID_QUERY_FILTER_OPERATOR',
    message: string,
  ) {
    super(message);
  }
}

type TokenType = 'ident' | 'string' | 'number' | 'datetime' | 'date' | 'op' | 'punct' | 'eof';
interface Token {
  type: TokenType;
  text: string;
  pos: number;
}

export type Literal =
  | { kind: 'string'; raw: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'datetime'; ms: number; text: string }
  | { kind: 'date'; text: string };

export type Condition =
  | { kind: 'and' | 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  | { kind: 'compare'; path: string[]; op: string; value: Literal }
  | { kind: 'like'; path: string[]; raw: string }
  | { kind: 'in'; path: string[]; negated: boolean; values: Literal[] };

export interface OrderItem {
  path: string[];
  descending: boolean;
  nullsLast: boolean;
}

export interface SoqlQuery {
  object: string;
  /** Field paths as written (`i360__Prospect__r.Name` is two segments); empty for COUNT(). */
  fields: string[][];
  count: boolean;
  where?: Condition;
  orderBy: OrderItem[];
  limit?: number;
  offset?: number;
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:?\d{2})/;
const DATE = /^\d{4}-\d{2}-\d{2}(?![\dT])/;
const NUMBER = /^-?\d+(?:\.\d+)?/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/;
const OPERATORS = ['!=', '<>', '<=', '>=', '=', '<', '>'];
const KEYWORDS = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ORDER',
  'BY',
  'LIMIT',
  'OFFSET',
  'ASC',
  'DESC',
  'NULLS',
  'FIRST',
  'LAST',
]);

const unexpected = (token: Token): SoqlError =>
  new SoqlError('MALFORMED_QUERY', `unexpected token: ${token.type === 'eof' ? '<EOF>' : `'${token.text}'`} at column ${token.pos + 1}`);

function tokenize(soql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < soql.length) {
    const rest = soql.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest[0] === "'") {
      // A string literal runs to the next quote not escaped by a backslash; its escapes are read in context (see unescape).
      let j = 1;
      while (j < rest.length && rest[j] !== "'") j += rest[j] === '\\' ? 2 : 1;
      if (j >= rest.length) throw new SoqlError('MALFORMED_QUERY', `unterminated string literal at column ${i + 1}`);
      tokens.push({ type: 'string', text: rest.slice(1, j), pos: i });
      i += j + 1;
      continue;
    }
    const match =
      (DATETIME.exec(rest) && { type: 'datetime' as const, m: DATETIME.exec(rest)! }) ||
      (DATE.exec(rest) && { type: 'date' as const, m: DATE.exec(rest)! }) ||
      (NUMBER.exec(rest) && { type: 'number' as const, m: NUMBER.exec(rest)! }) ||
      (IDENT.exec(rest) && { type: 'ident' as const, m: IDENT.exec(rest)! });
    if (match) {
      tokens.push({ type: match.type, text: match.m[0], pos: i });
      i += match.m[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op) {
      tokens.push({ type: 'op', text: op, pos: i });
      i += op.length;
      continue;
    }
    if ('(),'.includes(rest[0])) {
      tokens.push({ type: 'punct', text: rest[0], pos: i });
      i += 1;
      continue;
    }
    throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${rest[0]}' at column ${i + 1}`);
  }
  tokens.push({ type: 'eof', text: '', pos: soql.length });
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', "'": "'", '\\': '\\' };

/**
 * Reads a string literal's escapes (SOQL and SOSL Reference, Quoted String Escape Sequences:
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_quotedstringescapes.htm):
 * \n \r \t \b \f (either case), \" \' \\ and \uXXXX anywhere; \_ and \% only in a LIKE pattern; any other backslash is an
 * error. In a LIKE pattern the result is a list of pieces: literal text, or a wildcard (% any run, _ one character).
 */
function unescape(raw: string, like: boolean): Array<string | { wildcard: '%' | '_' }> {
  const pieces: Array<string | { wildcard: '%' | '_' }> = [];
  let text = '';
  const flush = () => {
    if (text) pieces.push(text);
    text = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      const next = raw[i + 1] ?? '';
      const lower = next.toLowerCase();
      if (next in SIMPLE_ESCAPES) text += SIMPLE_ESCAPES[next];
      else if ('nrtbf'.includes(lower) && lower) text += SIMPLE_ESCAPES[lower];
      else if (like && (next === '%' || next === '_')) text += next;
      else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(raw.slice(i + 2, i + 6))) {
        text += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16));
        i += 4;
      } else throw new SoqlError('MALFORMED_QUERY', `Invalid string literal '${raw}'. Illegal character sequence '\\${next}' in string literal.`);
      i += 1;
    } else if (like && (c === '%' || c === '_')) {
      flush();
      pieces.push({ wildcard: c });
    } else {
      text += c;
    }
  }
  flush();
  return pieces;
}

export function stringValue(raw: string): string {
  return unescape(raw, false).join('');
}

function likeRegExp(raw: string): RegExp {
  const source = unescape(raw, true)
    .map((piece) => (typeof piece === 'string' ? piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : piece.wildcard === '%' ? '[\\s\\S]*' : '[\\s\\S]'))
    .join('');
  // LIKE matches without regard to case (SOQL and SOSL Reference, Comparison Operators).
  return new RegExp(`^${source}$`, 'i');
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): SoqlQuery {
    this.keyword('SELECT');
    const { fields, count } = this.selectList();
    this.keyword('FROM');
    const object = this.ident();
    const query: SoqlQuery = { object, fields, count, orderBy: [] };
    if (this.isKeyword('WHERE')) {
      this.i++;
      query.where = this.condition();
    }
    if (this.isKeyword('ORDER')) {
      this.i++;
      this.keyword('BY');
      do query.orderBy.push(this.orderItem());
      while (this.punct(','));
    }
    if (this.isKeyword('LIMIT')) {
      this.i++;
      query.limit = this.integer();
    }
    if (this.isKeyword('OFFSET')) {
      this.i++;
      query.offset = this.integer();
    }
    if (this.peek().type !== 'eof') throw unexpected(this.peek());
    return query;
  }

  private selectList(): { fields: string[][]; count: boolean } {
    if (this.peek().type === 'ident' && this.peek().text.toUpperCase() === 'COUNT' && this.tokens[this.i + 1]?.text === '(') {
      this.i += 2;
      if (!this.punct(')')) throw unexpected(this.peek());
      return { fields: [], count: true };
    }
    const fields: string[][] = [];
    do fields.push(this.path());
    while (this.punct(','));
    return { fields, count: false };
  }

  private orderItem(): OrderItem {
    const path = this.path();
    let descending = false;
    if (this.isKeyword('ASC') || this.isKeyword('DESC')) descending = this.tokens[this.i++].text.toUpperCase() === 'DESC';
    // Nulls come first in ascending order and last in descending order unless NULLS says otherwise (ORDER BY page).
    let nullsLast = descending;
    if (this.isKeyword('NULLS')) {
      this.i++;
      if (this.isKeyword('FIRST')) nullsLast = false;
      else if (this.isKeyword('LAST')) nullsLast = true;
      else throw unexpected(this.peek());
      this.i++;
    }
    return { path, descending, nullsLast };
  }

  /**
   * AND and OR are not mixed at one level without parentheses: `a AND b OR c` is refused as unexpected 'OR'
   * (SOQL and SOSL Reference, Condition Expression Syntax (WHERE Clause)).
   */
  private condition(): Condition {
    const first = this.unary();
    const connector = this.isKeyword('AND') ? 'AND' : this.isKeyword('OR') ? 'OR' : null;
    if (!connector) return first;
    const items = [first];
    while (this.isKeyword(connector)) {
      this.i++;
      items.push(this.unary());
    }
    if (this.isKeyword('AND') || this.isKeyword('OR')) throw unexpected(this.peek());
    return { kind: connector === 'AND' ? 'and' : 'or', items };
  }

  private unary(): Condition {
    if (this.isKeyword('NOT')) {
      this.i++;
      return { kind: 'not', item: this.unary() };
    }
    if (this.punct('(')) {
      const inner = this.condition();
      if (!this.punct(')')) throw unexpected(this.peek());
      return inner;
    }
    const path = this.path();
    if (this.isKeyword('LIKE')) {
      this.i++;
      const token = this.next();
      if (token.type !== 'string') throw unexpected(token);
      return { kind: 'like', path, raw: token.text };
    }
    let negated = false;
    if (this.isKeyword('NOT')) {
      this.i++;
      negated = true;
      if (!this.isKeyword('IN')) throw unexpected(this.peek());
    }
    if (this.isKeyword('IN')) {
      this.i++;
      if (!this.punct('(')) throw unexpected(this.peek());
      const values: Literal[] = [];
      do values.push(this.literal());
      while (this.punct(','));
      if (!this.punct(')')) throw unexpected(this.peek());
      return { kind: 'in', path, negated, values };
    }
    const op = this.next();
    if (op.type !== 'op') throw unexpected(op);
    return { kind: 'compare', path, op: op.text === '<>' ? '!=' : op.text, value: this.literal() };
  }

  private literal(): Literal {
    const token = this.next();
    switch (token.type) {
      case 'string':
        return { kind: 'string', raw: token.text };
      case 'number':
        return { kind: 'number', value: Number(token.text) };
      case 'datetime':
        return { kind: 'datetime', ms: Date.parse(token.text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')), text: token.text };
      case 'date':
        return { kind: 'date', text: token.text };
      case 'ident': {
        const word = token.text.toLowerCase();
        if (word === 'null') return { kind: 'null' };
        if (word === 'true' || word === 'false') return { kind: 'boolean', value: word === 'true' };
        throw unexpected(token);
      }
      default:
        throw unexpected(token);
    }
  }

  private path(): string[] {
    const token = this.next();
    if (token.type !== 'ident' || KEYWORDS.has(token.text.toUpperCase())) throw unexpected(token);
    return token.text.split('.');
  }

  private ident(): string {
    const token = this.next();
    if (token.type !== 'ident' || token.text.includes('.')) throw unexpected(token);
    return token.text;
  }

  private integer(): number {
    const token = this.next();
    if (token.type !== 'number' || !/^\d+$/.test(token.text)) throw unexpected(token);
    return Number(token.text);
  }

  private keyword(word: string): void {
    if (!this.isKeyword(word)) throw unexpected(this.peek());
    this.i++;
  }

  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token.type === 'ident' && token.text.toUpperCase() === word;
  }

  private punct(text: string): boolean {
    if (this.peek().type === 'punct' && this.peek().text === text) {
      this.i++;
      return true;
    }
    return false;
  }

  private peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    return this.tokens[this.i++];
  }
}

export function parseSoql(soql: string): SoqlQuery {
  return new Parser(tokenize(soql)).parse();
}

/** A stored row: canonical field names to values (datetimes as Salesforce writes them, ids in 18 characters). */
export type Row = Record<string, unknown>;

/** What the evaluator reads: the schema, an object's rows, and any row by id (for relationship paths). */
export interface SoqlData {
  schema: SfSchema;
  rows(object: SfObject): Row[];
  byId(id: string): { object: SfObject; row: Row } | undefined;
}

const STRINGISH = new Set(['id', 'string', 'textarea', 'picklist', 'reference', 'email', 'phone', 'url']);
const NUMERIC = new Set(['currency', 'double', 'int']);

/** A path checked against the schema: its reference fields on the way, and the field it ends on. */
interface ResolvedPath {
  written: string[];
  /** Canonical names: relationship names, then the field. */
  canonical: string[];
  field: SfField;
}

function noSuchColumn(path: string[], object: SfObject): SoqlError {
  return new SoqlError(
    'INVALID_FIELD',
    `No such column '${path.at(-1)}' on entity '${object.name}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
  );
}

function resolvePath(schema: SfSchema, root: SfObject, path: string[]): ResolvedPath {
  let object: SfObject | undefined = root;
  const canonical: string[] = [];
  for (let i = 0; i < path.length - 1; i++) {
    const reference: SfField | undefined = object ? schema.relationship(object.name, path[i]) : undefined;
    if (!object || !reference)
      throw new SoqlError(
        'INVALID_FIELD',
        `Didn't understand relationship '${path[i]}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.`,
      );
    canonical.push(reference.relationshipName!);
    const targets: string[] = reference.referenceTo ?? [];
    // A polymorphic relationship (LinkedEntity) reaches whatever object the id names; only Id, Name and Type are known on it.
    object = targets.length === 1 && targets[0] !== '*' ? schema.object(targets[0]) : undefined;
    if (!object) {
      const last = path.at(-1)!;
      if (i !== path.length - 2 || !['id', 'name', 'type'].includes(last.toLowerCase())) throw noSuchColumn(path, root);
      const name = last[0].toUpperCase() + last.slice(1).toLowerCase();
      return {
        written: path,
        canonical: [...canonical, name],
        field: { name, label: name, type: name === 'Id' ? 'id' : 'string', nillable: true, createable: false, updateable: false, defaultedOnCreate: false },
      };
    }
  }
  const field = object.fields.find((f) => f.name.toLowerCase() === path.at(-1)!.toLowerCase());
  if (!field) throw noSuchColumn(path, object);
  return { written: path, canonical: [...canonical, field.name], field };
}

/** Follows a resolved path from a row; undefined where a relationship is empty. */
function valueAt(data: SoqlData, row: Row, path: ResolvedPath): unknown {
  let current: Row | undefined = row;
  for (let i = 0; i < path.canonical.length - 1 && current; i++) current = related(data, current, path.canonical[i]);
  return current ? fieldValue(data, current, path) : undefined;
}

/** A formula field's value on a row: worked out when read, following relationship paths from the row. */
export function calculatedValue(data: SoqlData, row: Row, field: SfField): unknown {
  const follow = (from: Row, written: string): unknown => {
    const steps = written.split('.');
    let current: Row | undefined = from;
    for (const step of steps.slice(0, -1)) current = current ? related(data, current, step) : undefined;
    if (!current) return null;
    const object = data.schema.objectOfId(String(current.Id ?? ''));
    const target = object ? data.schema.field(object.name, steps.at(-1)!) : undefined;
    if (!target) return null;
    return target.calculated ? calculatedValue(data, current, target) : (current[target.name] ?? null);
  };
  return field.calculated!(row, follow);
}

/** The row a relationship of `row` reaches, if any. */
function related(data: SoqlData, row: Row, relationship: string): Row | undefined {
  const reference = relationshipField(data, row, relationship);
  const id = reference ? row[reference] : undefined;
  return typeof id === 'string' ? data.byId(id)?.row : undefined;
}

/** The path's last field on the row it reached; `Type` on a polymorphic relationship names the row's object. */
function fieldValue(data: SoqlData, row: Row, path: ResolvedPath): unknown {
  const name = path.canonical.at(-1)!;
  if (path.field.calculated) return calculatedValue(data, row, path.field);
  if (name === 'Type' && path.canonical.length > 1 && !(name in row)) return data.schema.objectOfId(String(row.Id))?.name;
  return row[name];
}

/** The reference field behind a relationship name on a row's object (the row's Id names its object). */
function relationshipField(data: SoqlData, row: Row, relationship: string): string | undefined {
  const object = data.schema.objectOfId(String(row.Id ?? ''));
  return object ? data.schema.relationship(object.name, relationship)?.name : undefined;
}

function toMillis(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : ms;
}

/** Checks a literal against the field it is compared with, as Salesforce does before running the query. */
function checkLiteral(path: ResolvedPath, literal: Literal): void {
  if (literal.kind === 'null') return;
  const { type, name } = path.field;
  const wrong = (expected: string, quoted: boolean) =>
    new SoqlError(
      'INVALID_FIELD',
      `value of filter criterion for field '${name}' must be of type ${expected} and should ${quoted ? '' : 'not '}be enclosed in quotes`,
    );
  if (type === 'datetime' && literal.kind !== 'datetime') throw wrong('dateTime', false);
  if (type === 'date' && literal.kind !== 'date') throw wrong('date', false);
  if (NUMERIC.has(type) && literal.kind !== 'number') throw wrong('double', false);
  if (type === 'boolean' && literal.kind !== 'boolean') throw wrong('boolean', false);
  if (STRINGISH.has(type) && literal.kind !== 'string') throw wrong('string', true);
  if ((type === 'id' || type === 'reference') && literal.kind === 'string') {
    const id = stringValue(literal.raw);
    if (!to18(id)) throw new SoqlError('INVALID_QUERY_FILTER_OPERATOR', `invalid ID field: ${id}`);
  }
}

/** A literal as a value comparable with stored ones: ids in 18 characters, datetimes in milliseconds. */
function literalValue(path: ResolvedPath, literal: Literal): unknown {
  switch (literal.kind) {
    case 'string': {
      const text = stringValue(literal.raw);
      return path.field.type === 'id' || path.field.type === 'reference' ? to18(text) : text;
    }
    case 'datetime':
      return literal.ms;
    case 'date':
      return literal.text;
    case 'null':
      return null;
    default:
      return literal.value;
  }
}

/** Orders two non-null values of a field's type; strings without regard to case, as SOQL compares them. */
function compareValues(type: string, a: unknown, b: unknown): number {
  if (type === 'datetime') return (toMillis(a) ?? (a as number)) - (toMillis(b) ?? (b as number));
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (type === 'id' || type === 'reference') return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return String(a).localeCompare(String(b), 'en', { sensitivity: 'accent' });
}

const isNull = (v: unknown) => v === null || v === undefined;

export interface QueryResultRows {
  rows: Row[];
  /** How each selected path reads, for building the records. */
  paths: ResolvedPath[];
  object: SfObject;
  totalSize: number;
}

/**
 * ContentDocumentLink is queried only with a filter on Id, ContentDocumentId or LinkedEntityId (= one id or IN several)
 * unless the user has "Query All Files" (Object Reference, ContentDocumentLink:
 * https://developer.salesforce.com/docs/platform/object-reference/references/standard-objects/object-contentdocumentlink.html).
 */
function checkContentDocumentLinkFilter(query: SoqlQuery, object: SfObject): void {
  if (object.name !== 'ContentDocumentLink') return;
  const conjuncts = !query.where ? [] : query.where.kind === 'and' ? query.where.items : [query.where];
  const filtered = conjuncts.some(
    (c) =>
      ((c.kind === 'compare' && c.op === '=') || (c.kind === 'in' && !c.negated)) &&
      c.path.length === 1 &&
      ['id', 'contentdocumentid', 'linkedentityid'].includes(c.path[0].toLowerCase()),
  );
  if (!filtered)
    throw new SoqlError(
      'MALFORMED_QUERY',
      "Implementation restriction: ContentDocumentLink requires a filter by a single Id on ContentDocumentId or LinkedEntityId using the equals operator or multiple Id's using the IN operator.",
    );
}

/** Runs a parsed query: checks it against the schema, filters, orders, and cuts by OFFSET and LIMIT. */
export function runSoql(data: SoqlData, query: SoqlQuery): QueryResultRows {
  const object = data.schema.object(query.object);
  if (!object || !object.queryable)
    throw new SoqlError(
      'INVALID_TYPE',
      `sObject type '${query.object}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`,
    );
  const paths = query.fields.map((p) => resolvePath(data.schema, object, p));
  const seen = new Set<string>();
  for (const path of paths) {
    const key = path.canonical.join('.').toLowerCase();
    if (seen.has(key)) throw new SoqlError('MALFORMED_QUERY', `duplicate field selected: ${path.written.join('.')}`);
    seen.add(key);
  }
  checkContentDocumentLinkFilter(query, object);
  const predicate = query.where ? compile(data, object, query.where) : () => true;
  const order = query.orderBy.map((item) => {
    const path = resolvePath(data.schema, object, item.path);
    if (path.field.type === 'textarea' && (path.field.length ?? 0) > 255)
      throw new SoqlError('INVALID_FIELD', `field '${path.field.name}' can not be sorted in a query call`);
    return { item, path };
  });
  let rows = data.rows(object).filter(predicate);
  if (order.length) {
    rows = [...rows].sort((a, b) => {
      for (const { item, path } of order) {
        const va = valueAt(data, a, path);
        const vb = valueAt(data, b, path);
        if (isNull(va) || isNull(vb)) {
          if (isNull(va) && isNull(vb)) continue;
          return isNull(va) === item.nullsLast ? 1 : -1;
        }
        const c = compareValues(path.field.type, va, vb);
        if (c !== 0) return item.descending ? -c : c;
      }
      return 0;
    });
  }
  rows = rows.slice(query.offset ?? 0, query.limit === undefined ? undefined : (query.offset ?? 0) + query.limit);
  return { rows, paths, object, totalSize: rows.length };
}

function compile(data: SoqlData, object: SfObject, condition: Condition): (row: Row) => boolean {
  switch (condition.kind) {
    case 'and': {
      const items = condition.items.map((c) => compile(data, object, c));
      return (row) => items.every((f) => f(row));
    }
    case 'or': {
      const items = condition.items.map((c) => compile(data, object, c));
      return (row) => items.some((f) => f(row));
    }
    case 'not': {
      const inner = compile(data, object, condition.item);
      return (row) => !inner(row);
    }
    case 'like': {
      const path = filterable(resolvePath(data.schema, object, condition.path));
      if (!STRINGISH.has(path.field.type) || path.field.type === 'id' || path.field.type === 'reference')
        throw new SoqlError('INVALID_QUERY_FILTER_OPERATOR', `invalid operator on ${path.field.type} field: ${path.field.name}`);
      const pattern = likeRegExp(condition.raw);
      return (row) => {
        const value = valueAt(data, row, path);
        return !isNull(value) && pattern.test(String(value));
      };
    }
    case 'in': {
      const path = filterable(resolvePath(data.schema, object, condition.path));
      condition.values.forEach((v) => checkLiteral(path, v));
      const values = condition.values.map((v) => literalValue(path, v));
      return (row) => {
        const value = valueAt(data, row, path);
        const found = values.some((v) => (isNull(v) ? isNull(value) : !isNull(value) && compareValues(path.field.type, value, v) === 0));
        return condition.negated ? !found : found;
      };
    }
    case 'compare': {
      const path = filterable(resolvePath(data.schema, object, condition.path));
      checkLiteral(path, condition.value);
      const expected = literalValue(path, condition.value);
      const op = condition.op;
      return (row) => {
        const value = valueAt(data, row, path);
        if (isNull(expected)) return op === '=' ? isNull(value) : op === '!=' ? !isNull(value) : false;
        if (isNull(value)) return op === '!=';
        const c = compareValues(path.field.type, value, expected);
        return op === '=' ? c === 0 : op === '!=' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
      };
    }
  }
}

/** Long text areas cannot be filtered on (SOQL and SOSL Reference, Condition Expression Syntax). */
function filterable(path: ResolvedPath): ResolvedPath {
  if (path.field.type === 'textarea' && (path.field.length ?? 0) > 255)
    throw new SoqlError('INVALID_FIELD', `field '${path.field.name}' can not be filtered in a query call`);
  return path;
}

/**
 * A row as the query answers it: `attributes`, then each selected field in order; a relationship path nests an object
 * of its own (with its `attributes`), or null where the relationship is empty (REST API Developer Guide, Query:
 * https://developer.salesforce.com/docs/platform/api-rest/guide/resources-query.html).
 */
export function recordOf(
  data: SoqlData,
  result: QueryResultRows,
  row: Row,
  attributesOf: (object: SfObject, id: string) => Record<string, string>,
): Record<string, unknown> {
  const record: Record<string, unknown> = { attributes: attributesOf(result.object, String(row.Id)) };
  for (const path of result.paths) {
    let target = record;
    let current: Row | undefined = row;
    for (let i = 0; i < path.canonical.length - 1 && current; i++) {
      const relationship = path.canonical[i];
      current = target[relationship] === null ? undefined : related(data, current, relationship);
      if (!current) {
        target[relationship] = null;
        break;
      }
      const object = data.schema.objectOfId(String(current.Id))!;
      target[relationship] ??= { attributes: attributesOf(object, String(current.Id)) };
      target = target[relationship] as Record<string, unknown>;
    }
    if (current) target[path.canonical.at(-1)!] = fieldValue(data, current, path) ?? null;
  }
  return record;
}
