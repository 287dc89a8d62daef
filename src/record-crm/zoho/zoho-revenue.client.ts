import { Injectable } from '@nestjs/common';
import { isJsonObject } from '../../http/exact-json.js';
import { OutboundError } from '../../http/outbound-error.js';
import type { RecordModule } from '../../service-api/service-api.types.js';
import { envelopeItems, firstResultId, zohoId, ZohoClient } from './zoho.client.js';

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

  /** The product whose Product_Code is exactly `code` (`GET /Products/search?criteria=(Product_Code:equals:…)`), or null. */
  async findProductByCode(code: string): Promise<ZohoProduct | null> {
    const items = await this.search('Products', `(Product_Code:equals:${criteriaValue(code)})`);
    const found = items.find((p) => p.Product_Code === code);
    return found ? { id: zohoId('GET /Products/search', found.id), code } : null;
  }

  /** Products matching `words` (`GET /Products/search?word=`: Zoho's word search, name or code), for a picker. */
  async searchProducts(words: string): Promise<ZohoFields[]> {
    const endpoint = 'GET /Products/search';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: '/Products/search', params: { word: words, per_page: 20, page: 1 } });
    return envelopeItems(endpoint, data).map((p) => ({ ...p, id: zohoId(endpoint, p.id) }));
  }

  /** Quotes whose Subject starts with `prefix` (the search's own matching is loose: the caller checks exactly). */
  async findQuotes(prefix: string): Promise<ZohoFields[]> {
    const items = await this.search('Quotes', `(Subject:starts_with:${criteriaValue(prefix)})`);
    return items.map((q) => ({ ...q, id: zohoId('GET /{module}/search', q.id) }));
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

  /** `GET /{module}/search?criteria=`: the first page (200 records); 204 when nothing matches. */
  private async search(module: 'Products' | 'Quotes', criteria: string): Promise<Array<Record<string, unknown>>> {
    const endpoint = module === 'Products' ? 'GET /Products/search' : 'GET /{module}/search';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: `/${module}/search`, params: { criteria, per_page: 200, page: 1 } });
    return envelopeItems(endpoint, data);
  }
}

/** A value inside Zoho's search criteria: `(`, `)`, `,` and `\` are escaped with a backslash. */
export function criteriaValue(value: string): string {
  return value.replace(/[\\(),]/g, (c) => `\\${c}`);
}
