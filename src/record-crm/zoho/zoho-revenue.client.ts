import { Injectable, Optional } from '@nestjs/common';
import type { ZohoTrigger } from '../../crm-settings/automation-settings.js';
import { isJsonObject, optionalIdString } from '../../http/exact-json.js';
import { OutboundError } from '../../http/outbound-error.js';
import type { RecordModule } from '../../service-api/service-api.types.js';
import { envelopeItems, firstResultId, zohoId, zohoRecord, ZohoClient } from './zoho.client.js';
import { ZohoOwnWrites } from './zoho-own-writes.js';

/** A Zoho record as Zoho sent it (ids as exact strings where read here, lookups as `{ id, name }`). */
export type ZohoFields = Record<string, unknown> & { id: string };

/** A stage of a Deals pipeline: its value, its place in the pipeline and what it forecasts (Open, Closed Won, Closed Lost). */
export interface PipelineStage {
  value: string;
  sequence: number;
  forecast: string;
}

/** A Deals pipeline of a layout (crm-oas v8.0/pipeline/pipeline.yaml): its name and its stages in their order. */
export interface DealPipeline {
  name: string;
  default: boolean;
  stages: PipelineStage[];
}

/** How a write goes: `If-Unmodified-Since` (a 412 then: StaleWriteError), the automations it fires, retries. */
export interface WriteOptions {
  unmodifiedSince?: string;
  trigger?: readonly ZohoTrigger[];
  retry?: boolean;
}

/** What Zoho said of a write: its `$approval_state` (`approved`, or e.g. `approval_process_pending`: held). */
export interface WriteResult {
  approvalState: string | null;
}

/** Zoho answered 412: the record changed since it was read (`If-Unmodified-Since`); worth reading again and retrying. */
export class StaleWriteError extends OutboundError {
  constructor(endpoint: string) {
    super('zoho', endpoint, 'unavailable', 412, 'the record changed in Zoho since it was read (If-Unmodified-Since)');
    this.name = 'StaleWriteError';
  }
}

/** A tax of the Zoho org (`GET /org/taxes`): its id, name and rate in percent (exact decimal text). */
export interface OrgTax {
  id: string;
  name: string;
  percentage: string;
}

/** The product of a Product_Code. */
export interface ZohoProduct {
  id: string;
  code: string;
}

const SETTINGS_CACHE_MS = 10 * 60_000;
/** COQL: `in` takes at most 50 values; a call answers at most 2,000 rows, 200 for one credit (Zoho's Query API limits). */
const COQL_IN_VALUES = 50;
const COQL_PAGE = 200;

/**
 * The credits one COQL call costs by its LIMIT: 1 for up to 200 rows, 2 up to 1,000, 3 up to 2,000 (Zoho's "Query API -
 * An Overview", API credits based on the value of LIMIT; docs/zoho-crm.md, COQL). Every other call costs one.
 */
export function coqlCredits(limit: number): number {
  return limit <= 200 ? 1 : limit <= 1000 ? 2 : 3;
}
const COQL_MAX_ROWS = 10_000;
/** What the push reads of a Quote's rows past a single-record GET's cut: their ids (to remove them) and what they make. */
const QUOTE_ROW_FIELDS = ['Product_Name', 'Quantity', 'Net_Total'];
const enc = encodeURIComponent;

/**
 * The calls the revenue actions make (docs/zoho-crm.md, "Revenue"), labelled as zoho-scopes.ts names them: read and
 * update a record, the Deals' Stage pick
 * list, Products found by Product_Code, Quotes found by Subject, created and updated with their Quoted_Items. Each
 * goes through ZohoClient's token, retries and error reading.
 */
@Injectable()
export class ZohoRevenueClient {
  private readonly pipelinesByLayout = new Map<string, { pipelines: DealPipeline[]; at: number }>();
  private timeZone: { value: string; at: number } | null = null;
  private taxesKept: { taxes: OrgTax[]; at: number } | null = null;
  private readonly fieldsByModule = new Map<string, { fields: Array<{ apiName: string; dataType: string }>; at: number }>();

  constructor(
    private readonly zoho: ZohoClient,
    /** Where crm-sync's own writes are noted, so that Zoho's notifications of them need no read (none: not noted). */
    @Optional() private readonly ownWrites?: ZohoOwnWrites,
  ) {}

  /**
   * `GET /{module}/{id}`; null when Zoho does not know it (204, or 400 INVALID_DATA: Zoho's material shows both). A
   * Quote whose answer says `$has_more` of its Quoted_Items (a single-record GET cuts long subforms) gets every row,
   * read from the subform's own module by COQL (`from Quoted_Items where Parent_Id = …`).
   */
  async getRecord(module: RecordModule, id: string): Promise<ZohoFields | null> {
    const endpoint = 'GET /{module}/{id}';
    let item: Record<string, unknown> | undefined;
    try {
      const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: `/${enc(module)}/${enc(id)}` });
      item = envelopeItems(endpoint, data)[0];
    } catch (err) {
      if (err instanceof OutboundError && err.status === 400 && err.excerpt.startsWith('INVALID_DATA')) return null;
      throw err;
    }
    if (!item) return null;
    const record: ZohoFields = { ...item, id: zohoId(endpoint, item.id) };
    if (module === 'Quotes' && hasMore(item.$has_more, 'Quoted_Items')) {
      record.Quoted_Items = await this.query(`select ${QUOTE_ROW_FIELDS.join(', ')} from Quoted_Items where Parent_Id = ${coqlText(record.id)}`);
    }
    return record;
  }

  /**
   * `PUT /{module}/{id}` (updateRecord): the fields given are written, the others kept. With `unmodifiedSince`, the
   * header `If-Unmodified-Since` (Zoho answers 412 when the record changed since: StaleWriteError); `trigger` names
   * the automations the write fires (an empty list: none). Answers Zoho's `$approval_state` of the record.
   */
  async updateRecord(module: 'Deals' | 'Quotes', id: string, fields: Record<string, unknown>, options: WriteOptions = {}): Promise<WriteResult> {
    const endpoint = `PUT /${module}/{id}`;
    const headers: Record<string, string> = options.unmodifiedSince ? { 'if-unmodified-since': options.unmodifiedSince } : {};
    const json: Record<string, unknown> = { data: [{ id, ...fields }] };
    if (options.trigger) json.trigger = [...options.trigger];
    await this.ownWrites?.writing(module, id, Object.keys(fields));
    const { status, data } = await this.zoho.request<unknown>({
      endpoint,
      method: 'PUT',
      path: `/${module}/${enc(id)}`,
      json,
      headers,
      retry: options.retry ?? true,
      acceptStatus: [412],
    });
    if (status === 412) throw new StaleWriteError(endpoint);
    firstResultId(endpoint, data as never);
    const details = envelopeItems(endpoint, data)[0]?.details;
    const state = isJsonObject(details) ? details.$approval_state : undefined;
    return { approvalState: typeof state === 'string' ? state : null };
  }

  /**
   * The pipelines of a Deals layout (`GET /settings/pipeline?layout_id=`, crm-oas v8.0/pipeline/pipeline.yaml,
   * getPipelines), each stage with its `sequence_number` and `forecast_type`; kept 10 minutes per layout (`fresh`:
   * read now).
   */
  async pipelines(layoutId: string, fresh = false): Promise<DealPipeline[]> {
    const cached = this.pipelinesByLayout.get(layoutId);
    if (!fresh && cached && Date.now() - cached.at < SETTINGS_CACHE_MS) return cached.pipelines;
    const endpoint = 'GET /settings/pipeline';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: '/settings/pipeline', params: { layout_id: layoutId } });
    const list = isJsonObject(data) && Array.isArray(data.pipeline) ? data.pipeline.filter(isJsonObject) : [];
    const pipelines = list.map((p) => ({
      name: typeof p.actual_value === 'string' ? p.actual_value : String(p.display_value ?? ''),
      default: p.default === true,
      stages: (Array.isArray(p.maps) ? p.maps.filter(isJsonObject) : []).flatMap((m, i) => {
        const value = typeof m.actual_value === 'string' ? m.actual_value : typeof m.display_value === 'string' ? m.display_value : null;
        const sequence = typeof m.sequence_number === 'number' ? m.sequence_number : i + 1;
        return value === null ? [] : [{ value, sequence, forecast: typeof m.forecast_type === 'string' ? m.forecast_type : 'Open' }];
      }),
    }));
    this.pipelinesByLayout.set(layoutId, { pipelines, at: Date.now() });
    return pipelines;
  }

  /**
   * A module's fields as the org has them (`GET /settings/fields?module=`, crm-oas v8.0/fields/fields.yaml; for a
   * subform, its own API name, as Zoho's Subform API page says): each `api_name` and `data_type`; kept 10 minutes.
   */
  async fieldsOf(module: string): Promise<Array<{ apiName: string; dataType: string }>> {
    const cached = this.fieldsByModule.get(module);
    if (cached && Date.now() - cached.at < SETTINGS_CACHE_MS) return cached.fields;
    const endpoint = 'GET /settings/fields';
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'GET', path: '/settings/fields', params: { module } });
    const list = isJsonObject(data) && Array.isArray(data.fields) ? data.fields.filter(isJsonObject) : [];
    const fields = list.flatMap((f) =>
      typeof f.api_name === 'string' ? [{ apiName: f.api_name, dataType: typeof f.data_type === 'string' ? f.data_type : '' }] : [],
    );
    this.fieldsByModule.set(module, { fields, at: Date.now() });
    return fields;
  }

  /**
   * The org's time zone (`GET /org`, crm-oas v8.0/org/org.yaml `time_zone`), kept 10 minutes; null when Zoho names
   * none or one this runtime does not know.
   */
  async orgTimeZone(): Promise<string | null> {
    if (this.timeZone && Date.now() - this.timeZone.at < SETTINGS_CACHE_MS) return this.timeZone.value || null;
    const { data } = await this.zoho.request<unknown>({ endpoint: 'GET /org', method: 'GET', path: '/org' });
    const org = isJsonObject(data) && Array.isArray(data.org) ? data.org.find(isJsonObject) : undefined;
    const zone = typeof org?.time_zone === 'string' && knownTimeZone(org.time_zone) ? org.time_zone : '';
    this.timeZone = { value: zone, at: Date.now() };
    return zone || null;
  }

  /**
   * The org's taxes (`GET /org/taxes`, Zoho's Get Taxes page and its SDKs' TaxesOperations.getTaxes: `taxes[]` with
   * `id`, `name`, `display_label`, `value` (the rate in percent), `sequence_number`; 204 when the org has none; no
   * crm-oas v8 file covers it, so it is read tolerantly: a tax without an id, a name or a rate is left out); kept 10
   * minutes (`fresh`: read now). A Quote's taxes are sent as these (`$line_tax`).
   */
  async orgTaxes(fresh = false): Promise<OrgTax[]> {
    if (!fresh && this.taxesKept && Date.now() - this.taxesKept.at < SETTINGS_CACHE_MS) return this.taxesKept.taxes;
    const { data } = await this.zoho.request<unknown>({ endpoint: 'GET /org/taxes', method: 'GET', path: '/org/taxes' });
    const list = isJsonObject(data) && Array.isArray(data.taxes) ? data.taxes.filter(isJsonObject) : [];
    const taxes = list.flatMap((t): OrgTax[] => {
      let id: string | null;
      try {
        id = optionalIdString(t.id);
      } catch {
        id = null;
      }
      const rate = typeof t.value === 'number' || (typeof t.value === 'string' && /^\d+(\.\d+)?$/.test(t.value)) ? String(t.value) : null;
      const name = typeof t.name === 'string' && t.name !== '' ? t.name : typeof t.display_label === 'string' ? t.display_label : null;
      return id && rate && name ? [{ id, name, percentage: rate }] : [];
    });
    this.taxesKept = { taxes, at: Date.now() };
    return taxes;
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
        cost: coqlCredits(COQL_PAGE),
      });
      for (const row of envelopeItems(endpoint, data)) rows.push({ ...zohoRecord(endpoint, row), id: zohoId(endpoint, row.id) });
      const more = isJsonObject(data) && isJsonObject(data.info) && data.info.more_records === true;
      if (!more) return rows;
    }
    throw new OutboundError('zoho', endpoint, 'invalid_response', 200, `more than ${COQL_MAX_ROWS} rows for one query`);
  }

  /** `POST /Quotes`; not retried here (a Quote is not idempotent): the caller looks for it before trying again. */
  async createQuote(fields: Record<string, unknown>, trigger?: readonly ZohoTrigger[]): Promise<string> {
    const endpoint = 'POST /Quotes';
    const json: Record<string, unknown> = { data: [fields] };
    if (trigger) json.trigger = [...trigger];
    const { data } = await this.zoho.request<unknown>({ endpoint, method: 'POST', path: '/Quotes', json, retry: false });
    return firstResultId(endpoint, data as never);
  }

  /**
   * `PUT /Quotes/{id}` with its Quoted_Items; not retried here: the rows name the ones to delete by id, and a retry
   * after a lost answer would append the new rows twice. The caller reads the Quote again before trying again.
   */
  updateQuote(id: string, fields: Record<string, unknown>, options: Omit<WriteOptions, 'retry'> = {}): Promise<WriteResult> {
    return this.updateRecord('Quotes', id, fields, { ...options, retry: false });
  }
}

/**
 * A text in a COQL query: in single quotes, a quote inside doubled and a backslash left as it is (Zoho's Kaizen #171,
 * "FAQs on COQL API": `'1'' 2'`; a backslash is no escape in COQL).
 */
export function coqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Whether this runtime knows an IANA time zone name. */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day (`YYYY-MM-DD`) of an instant in a time zone (UTC when null). */
export function dayIn(at: Date, timeZone: string | null): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timeZone ?? 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** `$has_more` of a subform: `{ "<subform>": true }`, or a bare `true` (crm-oas does not spell it out: both read). */
function hasMore(value: unknown, subform: string): boolean {
  return value === true || (isJsonObject(value) && value[subform] === true);
}
