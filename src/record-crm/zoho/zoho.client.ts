import { Inject, Injectable } from '@nestjs/common';
import FormData from 'form-data';
import type { Readable } from 'node:stream';
import { ALERT_SINK, type AlertSink } from '../../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { RecordCrmConnection } from '../../config/connection-settings.js';
import { ConnectionsService } from '../../connections/connections.service.js';
import { MetricsService } from '../../observability/metrics.service.js';
import { idString } from '../../http/exact-json.js';
import { notConnected, OutboundError, type OutboundFailure } from '../../http/outbound-error.js';
import { OutboundHttp, type OutboundRequest, type OutboundResponse } from '../../http/outbound-http.js';
import { spoolToFile, SpoolTooLargeError, type Spooled } from '../../http/upload-spool.js';
import { SharedRedisService } from '../../queues/shared-redis.service.js';
import type { RecordModule } from '../../service-api/service-api.types.js';
import {
  RECORD_NAME_FIELDS,
  recordNameOf,
  type ChangedRecordsPage,
  type ChangedRecordsQuery,
  type RecordAttachment,
  type RecordCrm,
  type RecordCrmAccount,
  type RecordNote,
  type RecordRef,
  type RecordSearch,
  type UploadSource,
  type ZohoRecord,
} from '../record-crm.js';
import { RedisTokenStore } from './redis-token-store.js';
import { ZohoAuth } from './zoho-auth.js';
import { zohoCallKind, ZohoUsage } from './zoho-usage.js';
import { NO_CRM_ORGANIZATION, readZohoAccount } from './zoho-account.js';
import { crmWebOriginOf } from '../../config/zoho-data-centres.js';
import { missingScopes, RECONNECT_TO_GRANT, scopesFor } from './zoho-scopes.js';

/** Zoho's answers to a token it does not (or no longer) accept: a fresh token fixes them. */
const STALE_TOKEN_CODES = new Set(['INVALID_TOKEN', 'INVALID_OAUTHTOKEN', 'AUTHENTICATION_FAILURE']);
/** 4xx answers read here rather than thrown by OutboundHttp, so that Zoho's `code` decides what happens. */
const READ_STATUSES = [400, 401, 403, 404, 405, 406, 413, 415, 422];
const PAGE_SIZE = 200;
/** A picker shows a first page; a suggestion wants few candidates. */
const SEARCH_PAGE = 20;
/** An exact-value search reads every hit: 10 pages of 200 reach the 2,000 records Zoho's page numbers reach. */
const EXACT_SEARCH_PAGES = 10;
/** Get Records takes at most 100 ids per call. */
const IDS_PER_CALL = 100;
const MAX_PAGES = 500;
const enc = encodeURIComponent;

interface ZohoGrant {
  credentials: RecordCrmConnection;
  auth: ZohoAuth;
  store: RedisTokenStore;
  /** Set when Zoho refuses a valid token's scope: only re-authorisation helps, and readiness says so. */
  scopeProblem: string | null;
  /** The organization last read for readiness, and when. */
  account: { value: RecordCrmAccount | null; at: number } | null;
}

interface ZohoEnvelope {
  data?: Array<Record<string, unknown>>;
  info?: { more_records?: boolean; next_page_token?: string | null };
}

/** Zoho writes and reads times as ISO 8601 with an offset and no milliseconds (its SDK sends If-Modified-Since so). */
export function zohoDateTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * The record CRM adapter over Zoho CRM's v8 REST API (see docs/zoho-crm.md): OAuth refresh-token
 * grant, `Authorization: Zoho-oauthtoken`, a stale token refreshed and the call tried once more, 429 and 5xx
 * retried with backoff, and Zoho's error bodies (`code`, `message`, `details`) carried into the error message.
 */
@Injectable()
export class ZohoClient implements RecordCrm {
  private readonly http: OutboundHttp;
  private readonly accounts: OutboundHttp;
  /** The token of the connection in effect (shared with the other replicas); replaced when the connection changes (the console's Connect). */
  private grant: ZohoGrant | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    metrics: MetricsService,
    private readonly shared: SharedRedisService,
    @Inject(ALERT_SINK) private readonly alerts: AlertSink,
    private readonly usage: ZohoUsage,
  ) {
    this.http = new OutboundHttp({
      system: 'zoho',
      timeoutMs: config.http.timeoutMs,
      uploadTimeoutMs: config.http.uploadTimeoutMs,
      retry: config.http.retry,
      maxJsonBytes: config.http.maxJsonBytes,
      metrics,
    });
    this.accounts = new OutboundHttp({
      system: 'zoho_accounts',
      timeoutMs: config.http.timeoutMs,
      maxJsonBytes: config.http.maxJsonBytes,
      retry: config.http.retry,
      metrics,
      // Every try of a token request, retries included: the accounts server limits them too.
      throttle: (request) => {
        usage.count('token');
        return request();
      },
    });
  }

  async findAttachment(record: RecordRef, matches: (fileName: string) => boolean): Promise<RecordAttachment | null> {
    const params: Record<string, string | number> = { fields: 'id,File_Name,Size,Created_Time', per_page: PAGE_SIZE, page: 1 };
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const { data } = await this.call<ZohoEnvelope | null>({
        endpoint: 'GET /{module}/{id}/Attachments',
        method: 'GET',
        path: `${recordPath(record)}/Attachments`,
        params,
      });
      const found = envelopeItems('GET /{module}/{id}/Attachments', data).find((a) => typeof a.File_Name === 'string' && matches(a.File_Name));
      if (found) return { id: zohoId('GET /{module}/{id}/Attachments', found.id), fileName: found.File_Name as string };
      // 204 (no attachments) has no body; the last page says more_records: false.
      if (!data?.info?.more_records) return null;
      nextPage(params, data.info);
    }
    throw new OutboundError('zoho', 'GET /{module}/{id}/Attachments', 'invalid_response', 200, `more than ${MAX_PAGES} pages of attachments`);
  }

  async uploadAttachment(record: RecordRef, fileName: string, open: () => Promise<UploadSource>): Promise<string> {
    const endpoint = 'POST /{module}/{id}/Attachments';
    let stream: Readable | undefined;
    let spool: Spooled | undefined;
    try {
      const { data } = await this.call<ZohoEnvelope | null>(async () => {
        stream?.destroy();
        await spool?.remove();
        spool = undefined;
        const source = await open();
        stream = source.stream;
        let size = source.size;
        // Zoho's SDK sends the multipart body with its Content-Length, not chunked: without the PDF's size from the
        // download, the PDF is spooled to a temp file (at most PDF_MAX_BYTES) to learn it.
        if (size === null) {
          try {
            spool = await spoolToFile(source.stream, this.config.http.pdfMaxBytes);
          } catch (err) {
            if (err instanceof SpoolTooLargeError) throw new OutboundError('zoho', endpoint, 'rejected', null, err.message);
            throw err;
          }
          size = spool.size;
          stream = spool.open();
        }
        const form = new FormData();
        form.append('file', stream, { filename: fileName, contentType: 'application/pdf', knownLength: size });
        return {
          endpoint,
          method: 'POST',
          path: `${recordPath(record)}/Attachments`,
          body: form,
          headers: { ...form.getHeaders(), 'content-length': String(form.getLengthSync()) },
        };
      });
      return firstResultId(endpoint, data);
    } finally {
      stream?.destroy();
      await spool?.remove();
    }
  }

  async listNotes(record: RecordRef): Promise<RecordNote[]> {
    const notes: RecordNote[] = [];
    const params: Record<string, string | number> = { fields: 'id,Note_Title,Note_Content', per_page: PAGE_SIZE, page: 1 };
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const { data } = await this.call<ZohoEnvelope | null>({
        endpoint: 'GET /{module}/{id}/Notes',
        method: 'GET',
        path: `${recordPath(record)}/Notes`,
        params,
      });
      for (const n of envelopeItems('GET /{module}/{id}/Notes', data)) {
        notes.push({ id: zohoId('GET /{module}/{id}/Notes', n.id), title: String(n.Note_Title ?? ''), content: String(n.Note_Content ?? '') });
      }
      if (!data?.info?.more_records) return notes;
      // Notes are a related list: Zoho's SDK pages them by number only (GetNotesParam has no page_token).
      params.page = Number(params.page) + 1;
    }
    throw new OutboundError('zoho', 'GET /{module}/{id}/Notes', 'invalid_response', 200, `more than ${MAX_PAGES} pages of notes`);
  }

  async addNote(record: RecordRef, title: string, content: string): Promise<string> {
    const { data } = await this.call<ZohoEnvelope | null>({
      endpoint: 'POST /Notes',
      method: 'POST',
      path: '/Notes',
      json: { data: [{ Note_Title: title, Note_Content: content, Parent_Id: { module: { api_name: record.module }, id: record.recordId } }] },
      // A note has no name to look for, so a retry after an unclear failure is the caller's (who checks first).
      retry: false,
    });
    return firstResultId('POST /Notes', data);
  }

  async recordName(record: RecordRef): Promise<string | null> {
    const endpoint = 'GET /{module}/{id}';
    const { data } = await this.call<ZohoEnvelope | null>({
      endpoint,
      method: 'GET',
      path: recordPath(record),
      params: { fields: RECORD_NAME_FIELDS.join(',') },
    });
    const found = envelopeItems(endpoint, data)[0];
    return found ? recordNameOf(found) : null;
  }

  /**
   * Zoho's search API; 204 (nothing matched) is []. `word`, `email`, `phone`: the first page (at most 20), for a
   * picker. `{ field, equals }`: `criteria=(Field:equals:value)`, whose `equals` matches parts of a text
   * (module_search.yaml), so every hit matters to the caller's exact check: pages of 200 are read while
   * `info.more_records`, up to EXACT_SEARCH_PAGES (Zoho's search reaches 2,000 records by page number).
   */
  async searchRecords(module: RecordModule, query: RecordSearch): Promise<ZohoRecord[]> {
    const endpoint = 'GET /{module}/search';
    const exact = 'field' in query;
    const search = exact ? { criteria: `(${query.field}:equals:${escapeCriteriaValue(query.equals)})` } : query;
    const records: ZohoRecord[] = [];
    for (let page = 1; page <= (exact ? EXACT_SEARCH_PAGES : 1); page++) {
      const { data } = await this.call<ZohoEnvelope | null>({
        endpoint,
        method: 'GET',
        path: `/${enc(module)}/search`,
        params: { ...search, page, per_page: exact ? PAGE_SIZE : SEARCH_PAGE },
      });
      for (const record of envelopeItems(endpoint, data)) records.push({ ...record, id: zohoId(endpoint, record.id) });
      if (!data?.info?.more_records) break;
    }
    return records;
  }

  async listChangedRecords(module: RecordModule, query: ChangedRecordsQuery): Promise<ChangedRecordsPage> {
    const endpoint = 'GET /{module}';
    const params: Record<string, string | number> = {
      fields: query.fields.join(','),
      sort_by: 'Modified_Time',
      sort_order: 'asc',
      per_page: Math.min(query.perPage ?? PAGE_SIZE, PAGE_SIZE),
    };
    // A page token is bound to the other parameters of the first request; it replaces the page number.
    if (query.pageToken) params.page_token = query.pageToken;
    else params.page = query.page ?? 1;
    const headers: Record<string, string> = query.modifiedSince ? { 'if-modified-since': zohoDateTime(query.modifiedSince) } : {};
    const { status, data } = await this.call<ZohoEnvelope | null>({
      endpoint,
      method: 'GET',
      path: `/${enc(module)}`,
      params,
      headers,
      acceptStatus: [304],
    });
    if (status === 304) return { records: [], nextPageToken: null, moreRecords: false, notModified: true };
    const moreRecords = data?.info?.more_records === true;
    const token = data?.info?.next_page_token;
    return {
      records: envelopeItems(endpoint, data).map((item) => zohoRecord(endpoint, item)),
      nextPageToken: moreRecords && typeof token === 'string' && token !== '' ? token : null,
      moreRecords,
      notModified: false,
    };
  }

  async getRecordsByIds(module: RecordModule, ids: string[], fields: string[]): Promise<ZohoRecord[]> {
    const endpoint = 'GET /{module}?ids';
    const unique = [...new Set(ids)];
    const records: ZohoRecord[] = [];
    for (let at = 0; at < unique.length; at += IDS_PER_CALL) {
      const { data } = await this.call<ZohoEnvelope | null>({
        endpoint,
        method: 'GET',
        path: `/${enc(module)}`,
        params: { ids: unique.slice(at, at + IDS_PER_CALL).join(','), fields: fields.join(',') },
      });
      // 204 (none of the ids exists) has no body.
      for (const item of envelopeItems(endpoint, data)) records.push(zohoRecord(endpoint, item));
    }
    return records;
  }

  /**
   * Why no call can succeed now (no token, a scope Zoho's token answer leaves out or Zoho refused, no CRM
   * organization), or null; null too when Zoho CRM is not connected (nothing is wrong then). Asks the accounts server
   * only when there is neither a valid token nor a remembered refusal, and the organization once per
   * `RECORD_CRM_ACCOUNT_RECHECK_SECONDS` (2 hours), whatever the replicas.
   */
  async accessProblem(): Promise<string | null> {
    const credentials = await this.connections.get('record_crm');
    if (!credentials) return null;
    const grant = this.grantFor(credentials);
    try {
      const token = await grant.auth.get();
      const missing = token.scopes ? missingScopes(token.scopes) : [];
      if (missing.length > 0) {
        return `${RECONNECT_TO_GRANT} ${missing.join(', ')} (the token Zoho issued lacks them): connect Zoho CRM again from the console`;
      }
      if (grant.scopeProblem) return grant.scopeProblem;
      const account = await this.accountReadWithin(grant, this.config.recordCrmAccountRecheckMs);
      return account ? null : NO_CRM_ORGANIZATION;
    } catch (err) {
      if (grant.scopeProblem) return grant.scopeProblem;
      return err instanceof OutboundError ? err.excerpt || err.message : `cannot obtain a Zoho token: ${(err as Error).message}`;
    }
  }

  async connectedAccount(maxAgeMs = 0): Promise<RecordCrmAccount | null> {
    const credentials = await this.connections.get('record_crm');
    if (!credentials) return this.readAccount();
    return this.accountReadWithin(this.grantFor(credentials), maxAgeMs);
  }

  /**
   * The organization read no longer than `maxAgeMs` ago by this replica or another (kept in Redis), else read now and
   * kept for the others: however many replicas probe readiness, Zoho's `/org` and `/users` are read once per period.
   */
  private async accountReadWithin(grant: ZohoGrant, maxAgeMs: number): Promise<RecordCrmAccount | null> {
    const fresh = (entry: ZohoGrant['account']) => entry !== null && Date.now() - entry.at <= maxAgeMs;
    if (fresh(grant.account)) return grant.account!.value;
    if (this.shared.reachable) {
      const kept = await grant.store.readAccount<RecordCrmAccount>().catch(() => null);
      if (fresh(kept)) return (grant.account = kept)!.value;
    }
    grant.account = { value: await this.readAccount(), at: Date.now() };
    if (this.shared.reachable) await grant.store.saveAccount(grant.account, this.config.recordCrmAccountRecheckMs).catch(() => undefined);
    return grant.account.value;
  }

  /**
   * Where the org's records open in Zoho's web app: `https://crm.zoho.<tld>/crm/org<org id>` (the data centre from the
   * token's API domain, the org from GET /org, read once per account recheck at most); null when Zoho is not connected or
   * cannot be asked now. A record is then at `/tab/<module>/<id>` (docs/zoho-crm.md, "Links to records").
   */
  async webBase(): Promise<string | null> {
    const credentials = await this.connections.get('record_crm');
    if (!credentials) return null;
    const grant = this.grantFor(credentials);
    try {
      const token = await grant.auth.get();
      const orgId = (await this.accountReadWithin(grant, this.config.recordCrmAccountRecheckMs))?.orgId;
      return orgId ? `${crmWebOriginOf(token.apiDomain)}/crm/org${encodeURIComponent(orgId)}` : null;
    } catch {
      return null;
    }
  }

  private readAccount(): Promise<RecordCrmAccount | null> {
    return readZohoAccount(async (endpoint, path, params) => {
      const { status, data } = await this.call<unknown>({ endpoint, method: 'GET', path, params });
      return { status, data };
    });
  }

  // --- Revenue (zoho-revenue.client.ts): its calls go through the same token, retries and error reading. ---

  /** One API call (see `call`), for the revenue calls of ZohoRevenueClient. */
  request<T>(req: OutboundRequest): Promise<OutboundResponse<T>> {
    return this.call<T>(req);
  }

  private async currentGrant(endpoint: string): Promise<ZohoGrant> {
    const credentials = await this.connections.get('record_crm');
    if (!credentials) throw notConnected('zoho', endpoint, 'Zoho CRM');
    return this.grantFor(credentials);
  }

  private grantFor(credentials: RecordCrmConnection): ZohoGrant {
    if (this.grant?.credentials !== credentials) {
      const onRefused = (reason: string) => this.alerts.notify('record_crm_token_refused', { detail: reason });
      // The token is shared sealed with the connections key; without one, each process keeps its own.
      const store = new RedisTokenStore(this.shared, credentials, this.connections.key?.ok ? this.connections : null);
      this.grant = {
        credentials,
        auth: new ZohoAuth(this.accounts, credentials, this.config.http.retry, Date.now, onRefused, store, this.config.zohoDomains),
        store,
        scopeProblem: null,
        account: null,
      };
    }
    return this.grant;
  }

  /**
   * One API call with the current token. A token Zoho calls stale is dropped and the call tried once more with a
   * fresh one; a second refusal is final. `build` is asked for each try, so a stream body is opened anew.
   */
  private async call<T>(build: OutboundRequest | (() => Promise<OutboundRequest>)): Promise<OutboundResponse<T>> {
    for (let tries = 1; ; tries++) {
      const req = typeof build === 'function' ? await build() : build;
      const grant = await this.currentGrant(req.endpoint);
      const token = await grant.auth.get();
      this.usage.count(zohoCallKind(req.endpoint));
      const response = await this.http.request<T>({
        ...req,
        path: `${token.apiDomain}/crm/v8${req.path}`,
        headers: { ...(req.headers ?? {}), authorization: `Zoho-oauthtoken ${token.accessToken}` },
        acceptStatus: [...READ_STATUSES, ...(req.acceptStatus ?? [])],
      });
      // A status the caller reads itself (e.g. 412 on If-Unmodified-Since) is its answer, not an error.
      if (response.status < 400 || req.acceptStatus?.includes(response.status)) {
        grant.scopeProblem = null;
        return response;
      }
      const error = zohoError(response.status, response.data);
      if (response.status === 401 && STALE_TOKEN_CODES.has(error.code) && tries === 1) {
        await grant.auth.invalidate(token.accessToken);
        continue;
      }
      if (error.code === 'OAUTH_SCOPE_MISMATCH') {
        grant.scopeProblem = `${RECONNECT_TO_GRANT} ${scopesFor(req.endpoint, /^\/([^/?]+)/.exec(req.path)?.[1]).join(', ')} (Zoho refused ${req.endpoint} with OAUTH_SCOPE_MISMATCH): connect Zoho CRM again from the console`;
        // Answered 401 or 403 (Zoho's material shows both): either way only re-authorisation helps.
        throw new OutboundError('zoho', req.endpoint, 'unauthorized', response.status, `${grant.scopeProblem}; ${error.text}`);
      }
      throw new OutboundError('zoho', req.endpoint, error.failure, response.status, error.text);
    }
  }
}

/**
 * Moves list parameters to the next page. `page` numbers reach only the first 2,000 records of a list; Zoho's
 * `info.next_page_token`, when given, goes on past them, so it is followed instead of the page number.
 */
function nextPage(params: Record<string, string | number>, info: NonNullable<ZohoEnvelope['info']>): void {
  if (info.next_page_token) {
    delete params.page;
    params.page_token = info.next_page_token;
  } else {
    delete params.page_token;
    params.page = Number(params.page ?? 1) + 1;
  }
}

/** Zoho's criteria syntax: parentheses, commas and backslashes in a value are escaped with a backslash. */
function escapeCriteriaValue(value: string): string {
  return value.replace(/[\\(),]/g, (c) => `\\${c}`);
}

function recordPath(record: RecordRef): string {
  return `/${enc(record.module)}/${enc(record.recordId)}`;
}

/** Zoho's `{code, message, details}` as one line for the sync log. */
function describe(body: Record<string, unknown>): { code: string; text: string } {
  const code = typeof body.code === 'string' ? body.code : 'UNKNOWN';
  const message = typeof body.message === 'string' ? body.message : '';
  const details = body.details && typeof body.details === 'object' && Object.keys(body.details).length > 0 ? ` ${JSON.stringify(body.details)}` : '';
  return { code, text: `${code}: ${message}${details}`.slice(0, 400) };
}

export function zohoError(status: number, data: unknown): { code: string; text: string; failure: OutboundFailure } {
  let body = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  // A failed insert (a note, an attachment) carries its error in data[0], e.g. 400 {"data":[{"code":"INVALID_DATA",…}]}.
  const items = body.data;
  if (typeof body.code !== 'string' && Array.isArray(items) && items[0] && typeof items[0] === 'object') body = items[0] as Record<string, unknown>;
  const { code, text } = describe(body);
  const failure: OutboundFailure = status === 401 || status === 403 ? 'unauthorized' : status === 404 ? 'not_found' : 'rejected';
  return { code, text, failure };
}

/** The id of the one created item; Zoho reports a per-item failure inside `data[0]`, whatever the status. */
export function firstResultId(endpoint: string, envelope: ZohoEnvelope | null): string {
  const item = envelopeItems(endpoint, envelope)[0];
  if (!item) throw new OutboundError('zoho', endpoint, 'invalid_response', 200, 'answer has no data[0]');
  if (item.status !== 'success') throw new OutboundError('zoho', endpoint, 'rejected', 200, describe(item).text);
  const id = (item.details as { id?: unknown } | undefined)?.id;
  return id === undefined || id === null ? '' : zohoId(endpoint, id);
}

/** The items of an answer's `data`: none when absent (204); anything but a list of objects is an invalid answer. */
export function envelopeItems(endpoint: string, envelope: unknown): Array<Record<string, unknown>> {
  const data = envelope !== null && typeof envelope === 'object' ? (envelope as ZohoEnvelope).data : undefined;
  if (data === undefined || data === null) return [];
  if (!Array.isArray(data) || !data.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))) {
    throw new OutboundError('zoho', endpoint, 'invalid_response', 200, 'answer data is not a list of objects');
  }
  return data;
}

/**
 * A record as Zoho sent it, its id and its lookups' ids as exact strings. A lookup whose id is no id is left as sent:
 * a field the caller may not use never costs the record (the record's own id must be one).
 */
export function zohoRecord(endpoint: string, item: Record<string, unknown>): ZohoRecord {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const lookup = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
    record[key] = lookup && lookup.id !== undefined && lookup.id !== null ? { ...lookup, id: lookupId(lookup.id) } : value;
  }
  return { ...record, id: zohoId(endpoint, item.id) };
}

function lookupId(value: unknown): unknown {
  try {
    return idString(value);
  } catch {
    return value;
  }
}

/** An id of an answer as its exact string; anything else is an invalid answer (not idString's TypeError). */
export function zohoId(endpoint: string, value: unknown): string {
  try {
    return idString(value);
  } catch (err) {
    throw new OutboundError('zoho', endpoint, 'invalid_response', 200, `answer has an invalid id: ${(err as Error).message}`);
  }
}
