import { Injectable } from '@nestjs/common';
import { isJsonObject } from '../http/exact-json.js';
import { OutboundError } from '../http/outbound-error.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { envelopeItems, firstResultId, zohoId, zohoRecord, ZohoClient } from './zoho.client.js';

/** A Zoho record as Zoho sent it (ids as exact strings where read here, lookups as `{ id, name }`). */
export type ZohoFields = Record<string, unknown> & { id: string };

/** A value of the Deals' Stage pick list and its place in the list. */
export interface StageValue {
  value: string;
  sequence: number;
}

/** The product of a Product_Code. */
export interface ZohoProduct {
  id: string;
  code: string;
}

const STAGES_CACHE_MS = 10 * 60_000;
/** COQL: `in` takes at most 50 values; a call answers at most 2,000 rows, 200 for one credit (Zoho's Query API limits). */
const COQL_IN_VALUES = 50;
const COQL_PAGE = 200;
const COQL_MAX_ROWS = 10_000;
const enc = encodeURIComponent;

/**
 * The calls the revenue actions make (docs/zoho-crm.md, "Revenue"), labelled as zoho-scopes.ts names them: read and
 * update a record, the Deals' Stage pick
 * list, Products found by Product_Code, Quotes found by Subject, created and updated with their Quoted_Items. Each
 * goes through ZohoClient's token, retries and error reading.
 */
@Injectable()
export class ZohoRevenueClient {
  private stages: { values: StageValue[]; at: number } | null = null;

  constructor(private readonly zoho: ZohoClient) {}

  /** `GET /{module}/{id}`; null when Zoho does not know it (204, or 400 INVALID_DATA: Zoho's material shows both). */
  async getRecord(module: RecordModule, id: string): Promise<ZohoFields | null> {
    const endpoint = 'GET /{module}/{id}';
    try {
      const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: `/${enc(module)}/${enc(id)}` });
      const item = envelopeItems(endpoint, data)[0];
      return item ? { ...item, id: zohoId(endpoint, item.id) } : null;
    } catch (err) {
      if (err instanceof OutboundError && err.status === 400 && err.excerpt.startsWith('INVALID_DATA')) return null;
      throw err;
    }
  }

  /** `PUT /{module}/{id}` (updateRecord): the fields given are written, the others kept. Safe to repeat. */
  async updateRecord(module: 'Deals' | 'Quotes', id: string, fields: Record<string, unknown>, retry = true): Promise<void> {
    const endpoint = `PUT /${module}/{id}`;
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'PUT', path: `/${module}/${enc(id)}`, json: { data: [{ id, ...fields }] }, retry });
    firstResultId(endpoint, data as never);
  }

  /** The Deals' Stage pick list in its order (`GET /settings/fields?module=Deals`), kept 10 minutes. */
  async dealStages(): Promise<StageValue[]> {
    if (this.stages && Date.now() - this.stages.at < STAGES_CACHE_MS) return this.stages.values;
    const endpoint = 'GET /settings/fields';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: '/settings/fields', params: { module: 'Deals' } });
    const fields = isJsonObject(data) && Array.isArray(data.fields) ? data.fields : [];
    const stage = fields.find((f): f is Record<string, unknown> => isJsonObject(f) && f.api_name === 'Stage');
    const picks = stage && Array.isArray(stage.pick_list_values) ? stage.pick_list_values : [];
    const values = picks.filter(isJsonObject).flatMap((p, i) => {
      const value = typeof p.actual_value === 'string' ? p.actual_value : typeof p.display_value === 'string' ? p.display_value : null;
      return value === null ? [] : [{ value, sequence: typeof p.sequence_number === 'number' ? p.sequence_number : i + 1 }];
    });
    this.stages = { values, at: Date.now() };
    return values;
  }

  /**
   * The products whose Product_Code is exactly one of `codes`, by COQL (`in`, at most 50 values a query), read as
   * written (no search-index lag). Zoho's text comparison may ignore case: each code is compared exactly here; a
   * code two products share takes the first (lowest id).
   */
  async findProductsByCodes(codes: string[]): Promise<ZohoProduct[]> {
    const found = new Map<string, string>();
    const unique = [...new Set(codes)];
    for (let at = 0; at < unique.length; at += COQL_IN_VALUES) {
      const batch = unique.slice(at, at + COQL_IN_VALUES);
      const rows = await this.query(`select Product_Code from Products where Product_Code in (${batch.map(coqlText).join(', ')})`);
      for (const row of rows) {
        if (typeof row.Product_Code === 'string' && batch.includes(row.Product_Code) && !found.has(row.Product_Code)) found.set(row.Product_Code, row.id);
      }
    }
    return [...found].map(([code, id]) => ({ id, code }));
  }

  /** Products matching `words` (`GET /Products/search?word=`: Zoho's word search, name or code), for a picker. */
  async searchProducts(words: string): Promise<ZohoFields[]> {
    const endpoint = 'GET /Products/search';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: '/Products/search', params: { word: words, per_page: 20, page: 1 } });
    return envelopeItems(endpoint, data).map((p) => ({ ...p, id: zohoId(endpoint, p.id) }));
  }

  /**
   * Quotes whose Subject starts with `prefix`, with their Subject and Deal_Name, by COQL (`like 'prefix%'`): the
   * Query API reads records as written, where search may miss one just created (module_search.yaml: "204 … due to
   * indexing delays. To fetch records without delay, use the Query API"). Zoho may ignore case: the caller checks.
   */
  findQuotes(prefix: string): Promise<ZohoFields[]> {
    // The prefix is `Drawing <digits> -`: no wildcard of `like` in it.
    return this.query(`select Subject, Deal_Name from Quotes where Subject like ${coqlText(`${prefix}%`)}`);
  }

  /**
   * `POST /coql` (crm-oas v8.0/coql/coql.yaml, executeCOQLQuery): every row of a SELECT, 200 a call (`limit`,
   * `offset` while `info.more_records`), 204 when none; ids as exact strings, lookups as `{ id }`.
   */
  async query(select: string): Promise<ZohoFields[]> {
    const endpoint = 'POST /coql';
    const rows: ZohoFields[] = [];
    for (let offset = 0; offset < COQL_MAX_ROWS; offset += COQL_PAGE) {
      const { data } = await this.zoho.request<unknown>({
        endpoint,
        method: 'POST',
        path: '/coql',
        json: { select_query: `${select} limit ${COQL_PAGE} offset ${offset}` },
      });
      for (const row of envelopeItems(endpoint, data)) rows.push({ ...zohoRecord(endpoint, row), id: zohoId(endpoint, row.id) });
      const more = isJsonObject(data) && isJsonObject(data.info) && data.info.more_records === true;
      if (!more) return rows;
    }
    throw new OutboundError('zoho', endpoint, 'invalid_response', 200, `more than ${COQL_MAX_ROWS} rows for one query`);
  }

  /** `POST /Quotes`; not retried here (a Quote is not idempotent): the caller looks for it before trying again. */
  async createQuote(fields: Record<string, unknown>): Promise<string> {
    const endpoint = 'POST /Quotes';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'POST', path: '/Quotes', json: { data: [fields] }, retry: false });
    return firstResultId(endpoint, data as never);
  }

  /**
   * `PUT /Quotes/{id}` with its Quoted_Items; not retried here: the rows name the ones to delete by id, and a retry
   * after a lost answer would append the new rows twice. The caller reads the Quote again before trying again.
   */
  updateQuote(id: string, fields: Record<string, unknown>): Promise<void> {
    return this.updateRecord('Quotes', id, fields, false);
  }
}

/** A text in a COQL query: in single quotes, `'` and `\` escaped with a backslash. */
export function coqlText(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}
