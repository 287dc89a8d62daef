import { randomBytes } from 'node:crypto';
import { SimServer, type RecordedRequest, type SimHandler, type SimRequest, type SimResponse } from '../common/sim-server.js';
import { consentPage, errorPage } from './consent-page.js';
import { getRecords } from './get-records.js';
import { isKnownScope, lacking, requiredScopes, SELF_CLIENT_SCOPES, type ScopedCall, type ScopeReading } from './scopes.js';
import { parseMultipart } from './multipart.js';
import { STANDARD_LAYOUT, STANDARD_PIPELINE, ZohoRevenueSim } from './revenue.js';
import { searchRecords } from './zoho-search.js';
import { runCoql, type QueryableModule } from './coql.js';

export const ZOHO_MODULES = ['Deals', 'Quotes', 'Leads', 'Contacts'] as const;
export type ZohoModule = (typeof ZOHO_MODULES)[number];

/** A client registered with the accounts server (in Zoho's API console), for the authorization-code flow. */
export interface ZohoOAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Shown on the consent page; the client id when absent. */
  name?: string;
  /**
   * A secret of its own in some data centres (by `location`), as Zoho's API console allows once a data centre is
   * turned on for the client without "use the same OAuth credentials for all data centers"; elsewhere `clientSecret`.
   */
  secrets?: Record<string, string>;
}

export interface ZohoSimOptions {
  /** The default client, which owns `refreshToken`. */
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  tokenLifetimeSeconds?: number;
  /** Further clients; one with the default client's id replaces it. */
  oauthClients?: ZohoOAuthClient[];
  /** `GET /oauth/v2/auth` skips the consent page and redirects with a code at once. */
  autoApprove?: boolean;
  /** The user's data centre, named by `location` in the redirect; `us` by default. Its accounts server is `accounts`. */
  dataCenter?: string;
  /** Other data centres (their `location`s), each with an accounts server of its own (`accountsOf`). */
  otherDataCenters?: string[];
}

/** A Zoho user: who signs in on the consent page, and whose CRM organization (if any) the tokens then reach. */
export interface ZohoUserAccount {
  userId: string;
  email: string;
  fullName: string;
  org: { id: string; name: string } | null;
}

/** A decision on the consent page (or by `autoApprove`). */
export interface ZohoConsent {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  approved: boolean;
}

export interface ZohoAttachment {
  id: string;
  fileName: string;
  size: number;
  contentType: string;
  bytes: Buffer;
  createdTime: string;
  /**
   * How the upload's body was framed: its Content-Length (null without one) and whether it came chunked. Zoho's SDK
   * sends multipart uploads with a Content-Length; null for attachments added by hand.
   */
  framing: { contentLength: number | null; chunked: boolean } | null;
}

export interface ZohoNote {
  id: string;
  title: string;
  content: string;
  createdTime: string;
}

interface StoredRecord {
  id: string;
  fields: Record<string, unknown>;
  createdAt: number;
  modifiedAt: number;
  attachments: ZohoAttachment[];
  notes: ZohoNote[];
}

interface IssuedToken {
  /** The refresh token it came from; null for one from an online (no refresh token) authorization. */
  refreshToken: string | null;
  scopes: string[];
  account: ZohoUserAccount;
  expiresAt: number;
  expired: boolean;
}

/** An authorization request that passed the checks of `GET /oauth/v2/auth`. */
interface AuthorizationRequest {
  client: ZohoOAuthClient;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  offline: boolean;
  /** prompt=consent: Zoho issues a refresh token again for a client the user consented to before. */
  promptConsent: boolean;
}

interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  offline: boolean;
  promptConsent: boolean;
  account: ZohoUserAccount;
  /** The data centre of the account: only its accounts server exchanges the code. */
  location: string;
  expiresAt: number;
}

interface RefreshGrant {
  clientId: string;
  /** The data centre whose accounts server issued it, the only one that takes it. */
  location: string;
  scopes: string[];
  account: ZohoUserAccount;
}

const THROTTLE_WINDOW_MS = 10 * 60 * 1000;

/** Zoho's accounts docs: an authorization code is valid for 2 minutes, and once. */
export const AUTHORIZATION_CODE_LIFETIME_MS = 2 * 60 * 1000;

const AUTHORIZE_PATH = '/oauth/v2/auth';
const APPROVE_PATH = '/oauth/v2/auth/approve';
const REJECT_PATH = '/oauth/v2/auth/reject';

/** Zoho's error body: `{code, details, message, status: "error"}`. */
export function zohoError(code: string, message: string, details: Record<string, unknown> = {}) {
  return { code, details, message, status: 'error' };
}

/** Zoho's token shape (codes, access and refresh tokens alike): `1000.<hex>.<hex>`. */
function zohoToken(): string {
  return `1000.${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`;
}

/** The accounts server takes its parameters from the query string as well as from a form body. */
function paramsOf(req: SimRequest): URLSearchParams {
  const params = new URLSearchParams(req.query);
  for (const [key, value] of new URLSearchParams(req.body.toString('utf8'))) params.set(key, value);
  return params;
}

/** Zoho answers a refused token request with status 200 and an `error`. */
const oauthError = (error: string): SimResponse => ({ status: 200, body: { error } });

/**
 * A 302 to `uri` with `params` added to its query (a null one left out), each encoded by encodeURIComponent: a space is
 * `%20`, never the `+` of form encoding, so a client decoding either way reads the same value.
 */
function redirect(uri: string, params: Record<string, string | null>): SimResponse {
  const query = Object.entries(params)
    .flatMap(([name, value]) => (value === null ? [] : [`${encodeURIComponent(name)}=${encodeURIComponent(value)}`]))
    .join('&');
  return { status: 302, headers: { location: `${uri}${uri.includes('?') ? '&' : '?'}${query}` } };
}

/** The client's secret at a data centre's accounts server. */
const secretIn = (client: ZohoOAuthClient, location: string): string => client.secrets?.[location] ?? client.clientSecret;

/** Zoho separates the scopes of a request with commas. */
function parseScopes(scope: string | null): string[] {
  return (scope ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Zoho writes times as ISO 8601 with an offset and no milliseconds. */
function zohoTime(at = Date.now()): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** Whether a request's body came with a Content-Length, or chunked (Transfer-Encoding: chunked). */
function framingOf(req: SimRequest): { contentLength: number | null; chunked: boolean } {
  const length = req.headers['content-length'];
  return {
    contentLength: length === undefined ? null : Number(length),
    chunked: /chunked/i.test(String(req.headers['transfer-encoding'] ?? '')),
  };
}

function isModule(name: string): name is ZohoModule {
  return (ZOHO_MODULES as readonly string[]).includes(name);
}

/** The fields of each module a query may name before any record holds them (Zoho's standard API names). */
const MODULE_FIELDS: Record<ZohoModule, readonly string[]> = {
  Deals: ['Deal_Name', 'Stage', 'Amount', 'Closing_Date', 'Pipeline', 'Layout', 'Account_Name', 'Contact_Name', 'Owner', 'Modified_Time', 'Created_Time'],
  Quotes: ['Subject', 'Deal_Name', 'Account_Name', 'Contact_Name', 'Quote_Stage', 'Sub_Total', 'Grand_Total', 'Modified_Time', 'Created_Time'],
  Leads: ['Last_Name', 'First_Name', 'Full_Name', 'Email', 'Phone', 'Mobile', 'Company', 'Modified_Time', 'Created_Time'],
  Contacts: ['Last_Name', 'First_Name', 'Full_Name', 'Email', 'Phone', 'Mobile', 'Account_Name', 'Modified_Time', 'Created_Time'],
};

/** The module a COQL query reads (its `from`), for the scope check; '' when there is none. */
function coqlModule(body: unknown): string {
  const query = (body as { select_query?: unknown } | undefined)?.select_query;
  return typeof query === 'string' ? (/\bfrom\s+([A-Za-z_]\w*)/i.exec(query)?.[1] ?? '') : '';
}

const invalidModule = (): SimResponse => ({
  status: 400,
  body: zohoError('INVALID_MODULE', 'the module name given seems to be invalid', { resource_path_index: 0 }),
});
const invalidRecord = (): SimResponse => ({
  status: 400,
  body: zohoError('INVALID_DATA', 'the related id given seems to be invalid', { resource_path_index: 1 }),
});

/**
 * Zoho CRM: its OAuth accounts server (`accounts`) and its v8 REST API (`api`), each a real HTTP server.
 * Follows docs/zoho-crm.md; where the sources are unsure, a switch picks the reading.
 */
export class ZohoSim {
  readonly accounts = new SimServer('zoho-accounts');
  readonly api = new SimServer('zoho-api');
  /** Products, Quotes and Deal updates (revenue.ts). */
  readonly revenue: ZohoRevenueSim;

  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
  tokenLifetimeSeconds: number;

  /** Answer the old token shape: `expires_in` in ms plus `expires_in_sec`. */
  legacyExpiresInMs = false;
  /** Tokens per refresh token per 10 minutes before "Access Denied". */
  throttleLimit = 10;
  /** Token answers name the token's scopes (`scope`, space-separated), as Zoho's do. */
  scopeInTokenAnswers = true;
  /** Which reading of Zoho's material decides the scopes each call needs (see scopes.ts). */
  scopeReading: ScopeReading = 'strict';
  /** Who signs in on the consent page; the configured refresh token reaches this one's organization too. */
  account: ZohoUserAccount = {
    userId: '4150868000000225013',
    email: 'admin@acme.example',
    fullName: 'Acme Admin',
    org: { id: '12345', name: 'Acme Roofing' },
  };
  /** Every authenticated API call answers OAUTH_SCOPE_MISMATCH, with `scopeMismatchStatus`. */
  scopeMismatch = false;
  /** Status of a scope mismatch: Zoho's docs show 401, its v8 OpenAPI files 403 ("required oauth scope is missing"). */
  scopeMismatchStatus: 401 | 403 = 401;
  /** How `GET /crm/v8/{Module}/{id}` answers an id it does not know. */
  missingRecordStyle: 'no-content' | 'invalid-data' = 'no-content';
  /** Zoho v8 takes attachments up to 100 MB; a larger one is answered 413 FILE_SIZE_MORE_THAN_ALLOWED_SIZE. */
  maxAttachmentBytes = 100 * 1024 * 1024;
  /**
   * How an empty attachment or note list is answered: `204` with no body (Zoho's docs) or `200` with
   * `{"data": [], "info": {…, "more_records": false}}` (Zoho's v8 attachments OpenAPI file).
   */
  emptyListStyle: 'no-content' | 'empty-data' = 'no-content';
  /**
   * How long a record just created or edited stays out of `GET /{module}/search` answers (a search that would have
   * found only it answers 204): crm-oas `v8.0/module_search/module_search.yaml` says a search may miss such records
   * "due to indexing delays. To fetch records without delay, use the Query API". 0: none. COQL (`POST /coql`) and
   * reads by id see every record at once.
   */
  searchLagMs = 0;
  /** The org's `time_zone` (`GET /org`, crm-oas v8.0/org/org.yaml): an IANA name. */
  orgTimeZone = 'UTC';
  /** Default page size of attachment lists when the request gives no `per_page`. */
  defaultPerPage = 200;
  /** The largest page of a list whatever `per_page` asks (Zoho's is 200); lower it to exercise paging. */
  maxPerPage = 200;
  /**
   * How far `page` numbers reach in a list: past this many records Zoho answers 400
   * DISCRETE_PAGINATION_LIMIT_EXCEEDED and only `page_token` (from `info.next_page_token`) goes on.
   */
  pageRecordsLimit = 2000;
  /** How far page tokens reach in Get Records (Zoho: 100,000 records). */
  tokenRecordsLimit = 100_000;
  /** Status of a notes insert where at least one note was added (Zoho's docs waver between 200 and 201). */
  notesSuccessStatus: 200 | 201 = 201;
  /**
   * Status of a notes insert where every note failed; the errors sit in `data[i]`. Zoho's v8 OpenAPI file
   * (notes.yaml) answers a failed insert, e.g. a note on an unknown record, with 400 and the error in `data[0]`.
   */
  notesFailureStatus: 200 | 201 | 400 = 400;
  /** `GET /oauth/v2/auth` redirects with a code at once instead of showing the consent page. */
  autoApprove: boolean;
  /** The `location` the authorization redirect names. */
  dataCenter: string;
  authorizationCodeLifetimeMs = AUTHORIZATION_CODE_LIFETIME_MS;
  /** Every decision on the consent page, in order. */
  readonly consents: ZohoConsent[] = [];
  /** The tokens revoked through `POST /oauth/v2/token/revoke`, in order (not those revoked by `revokeRefreshToken`). */
  readonly revokedTokens: string[] = [];

  private readonly clients = new Map<string, ZohoOAuthClient>();
  /** Every data centre's accounts server, by `location`; the first data centre's is `accounts`. */
  private readonly accountsServers = new Map<string, SimServer>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly refreshGrants = new Map<string, RefreshGrant>();
  private readonly records = new Map<ZohoModule, Map<string, StoredRecord>>(ZOHO_MODULES.map((m) => [m, new Map()]));
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly grantTimes = new Map<string, number[]>();
  private readonly revoked = new Set<string>();
  /** The client and user pairs given a refresh token once: Zoho gives another only with prompt=consent. */
  private readonly offlineConsents = new Set<string>();
  private nextId = 5277036n;
  private issued = 0;

  constructor(options: ZohoSimOptions = {}) {
    this.clientId = options.clientId ?? 'zoho-client';
    this.clientSecret = options.clientSecret ?? 'zoho-secret';
    this.refreshToken = options.refreshToken ?? 'zoho-refresh';
    this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
    this.autoApprove = options.autoApprove ?? false;
    this.dataCenter = options.dataCenter ?? 'us';
    this.accountsServers.set(this.dataCenter, this.accounts);
    for (const location of options.otherDataCenters ?? []) this.accountsServers.set(location, new SimServer(`zoho-accounts-${location}`));
    this.registerClient({ clientId: this.clientId, clientSecret: this.clientSecret, redirectUris: [] });
    for (const client of options.oauthClients ?? []) this.registerClient(client);
    this.refreshGrants.set(this.refreshToken, { clientId: this.clientId, location: this.dataCenter, scopes: SELF_CLIENT_SCOPES, account: this.account });

    for (const [location, server] of this.accountsServers) {
      server.route('GET', AUTHORIZE_PATH, (req) => this.authorize(req));
      server.route('POST', APPROVE_PATH, (req) => this.decide(req, true));
      server.route('POST', REJECT_PATH, (req) => this.decide(req, false));
      server.route('POST', '/oauth/v2/token', (req) => this.grant(req, location));
      server.route('POST', '/oauth/v2/token/revoke', (req) => this.revoke(req, location));
    }

    // Revenue (revenue.ts): before the `/:module/:id` routes, which would take `Products/search` and `settings/fields`.
    this.revenue = new ZohoRevenueSim({
      authed: (call, handler) =>
        this.authed(
          () => call,
          (req) => handler(req),
        ),
      records: (module) => this.moduleRecords(module),
      addRecord: (module, id, fields) => this.addRecord(module, id, fields),
      newId: () => this.newId(),
      indexed: (writtenAt) => this.indexed(writtenAt),
    });
    this.revenue.install(this.api);
    this.api.route(
      'POST',
      '/crm/v8/Notes',
      this.authed(
        () => ({ call: 'add_note' }),
        (req) => this.addNotes(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/org',
      this.authed(
        () => ({ call: 'org' }),
        (_req, token) => this.org(token),
      ),
    );
    // Zoho's web app's page of a record (`https://crm.zoho.com/crm/org<id>/tab/<module>/<id>`), where crm-sync's links
    // lead: served on the API domain, which the daemon uses as the web origin of an API domain that is not Zoho's.
    this.api.route('GET', '/crm/:org/tab/:module/:id', (req) => {
      const record = this.records.get(req.params.module as ZohoModule)?.get(req.params.id);
      if (!record) return { status: 404, raw: Buffer.from('no such record'), headers: { 'content-type': 'text/plain' } };
      const name = String(record.fields.Deal_Name ?? record.fields.Full_Name ?? record.fields.Subject ?? record.id);
      const text = `${req.params.module} ${record.id}: ${name}`.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      return { status: 200, raw: Buffer.from(`<!doctype html><title>${text}</title><h1>${text}</h1>`), headers: { 'content-type': 'text/html' } };
    });
    this.api.route(
      'GET',
      '/crm/v8/users',
      this.authed(
        () => ({ call: 'current_user' }),
        (req, token) => this.users(req, token),
      ),
    );
    // Before `/:module/:id`, which would take `search` for a record id.
    this.api.route(
      'GET',
      '/crm/v8/:module/search',
      this.authed(
        (req) => ({ call: 'search_records', module: req.params.module }),
        (req) =>
          isModule(req.params.module)
            ? searchRecords(
                [...this.moduleRecords(req.params.module).values()].filter((r) => this.indexed(r.modifiedAt)),
                req.query,
                this.maxPerPage,
              )
            : invalidModule(),
      ),
    );
    // COQL (crm-oas v8.0/coql/coql.yaml): the module's READ scope and ZohoCRM.coql.READ; no indexing lag.
    this.api.route(
      'POST',
      '/crm/v8/coql',
      this.authed(
        (req) => ({ call: 'coql', module: coqlModule(req.json) }),
        (req) => runCoql(req.json, (module) => this.queryable(module)),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module',
      this.authed(
        (req) => ({ call: 'get_records', module: req.params.module }),
        (req) => this.listRecords(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id',
      this.authed(
        (req) => ({ call: 'get_record', module: req.params.module }),
        (req) => this.getRecord(req),
      ),
    );
    this.api.route(
      'POST',
      '/crm/v8/:module/:id/Attachments',
      this.authed(
        (req) => ({ call: 'upload_attachment', module: req.params.module }),
        (req) => this.upload(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Attachments',
      this.authed(
        (req) => ({ call: 'list_attachments', module: req.params.module }),
        (req) => this.listAttachments(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Attachments/:attId',
      this.authed(
        (req) => ({ call: 'list_attachments', module: req.params.module }),
        (req) => this.download(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Notes',
      this.authed(
        (req) => ({ call: 'list_notes', module: req.params.module }),
        (req) => this.listNotes(req),
      ),
    );
  }

  async start(): Promise<void> {
    await Promise.all([...[...this.accountsServers.values()].map((server) => server.start()), this.api.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([...[...this.accountsServers.values()].map((server) => server.stop()), this.api.stop()]);
  }

  get accountsUrl(): string {
    return this.accounts.url;
  }

  /** The accounts server of a data centre, by `location`. */
  accountsOf(location: string): SimServer {
    const server = this.accountsServers.get(location);
    if (!server) throw new Error(`no Zoho data centre ${location} in this simulator`);
    return server;
  }

  get apiDomain(): string {
    return this.api.url;
  }

  /** The API domain token answers name; null: this simulator's own (a forged answer names another host). */
  answeredApiDomain: string | null = null;

  get tokensIssued(): number {
    return this.issued;
  }

  get tokenRequests(): RecordedRequest[] {
    return this.accounts.requestsTo('POST', '/oauth/v2/token');
  }

  /** Registers an OAuth client, replacing one with the same id. */
  registerClient(client: ZohoOAuthClient): void {
    this.clients.set(client.clientId, { ...client, redirectUris: [...client.redirectUris] });
  }

  /** Adds a redirect URI to a registered client (the default one unless named), e.g. the daemon's once its port is known. */
  addRedirectUri(redirectUri: string, clientId = this.clientId): void {
    const client = this.clients.get(clientId);
    if (!client) throw new Error(`no Zoho OAuth client ${clientId}`);
    client.redirectUris.push(redirectUri);
  }

  /** The scopes of the latest approved consent; empty before any. */
  get grantedScopes(): string[] {
    return [...(this.consents.findLast((c) => c.approved)?.scopes ?? [])];
  }

  /** The scopes a refresh token was granted (the configured one: SELF_CLIENT_SCOPES); undefined for a token never issued. */
  scopesOf(refreshToken: string): string[] | undefined {
    const scopes = this.refreshGrants.get(refreshToken)?.scopes;
    return scopes && [...scopes];
  }

  /** A refresh token of the default client, as a consent with these scopes by `account` (the current one) would give. */
  issueRefreshToken(scopes: string[], account: ZohoUserAccount = this.account): string {
    return this.newRefreshToken(this.clientId, [...scopes], account);
  }

  /** Revokes a refresh token (the configured one by default) and the access tokens it gave. */
  revokeRefreshToken(refreshToken = this.refreshToken): void {
    this.revoked.add(refreshToken);
    for (const token of this.tokens.values()) if (token.refreshToken === refreshToken) token.expired = true;
  }

  expireAllTokens(): void {
    for (const token of this.tokens.values()) token.expired = true;
  }

  /** Whether a record written at `writtenAt` is in the search index yet (see searchLagMs). */
  indexed(writtenAt: number): boolean {
    return Date.now() - writtenAt >= this.searchLagMs;
  }

  /** A module as COQL reads it: its records (Products: the revenue side's) and its fields' API names. */
  private queryable(module: string): QueryableModule | null {
    if (module === 'Products') return this.revenue.queryableProducts();
    if (module === 'Quoted_Items') return this.revenue.queryableQuoteRows();
    if (!isModule(module)) return null;
    return { records: [...this.moduleRecords(module).values()], fields: MODULE_FIELDS[module] };
  }

  /** Adds a record and returns its id (a 19-digit decimal string); created and modified `at` (now by default). */
  addRecord(module: ZohoModule, id?: string, fields: Record<string, unknown> = {}, at: Date = new Date()): string {
    const recordId = id ?? this.newId();
    const time = at.getTime();
    this.moduleRecords(module).set(recordId, { id: recordId, fields, createdAt: time, modifiedAt: time, attachments: [], notes: [] });
    return recordId;
  }

  /** Changes a record's fields as someone would in Zoho's UI, setting its Modified_Time to `at` (now by default). */
  modifyRecord(module: ZohoModule, id: string, changes: Record<string, unknown>, at: Date = new Date()): void {
    const record = this.moduleRecords(module).get(id);
    if (!record) throw new Error(`no ${module} record ${id}`);
    record.fields = { ...record.fields, ...changes };
    record.modifiedAt = at.getTime();
  }

  /** Attaches a file as someone else would (e.g. by hand in Zoho's UI); returns the attachment id. */
  addAttachment(module: ZohoModule, id: string, fileName: string, bytes: Buffer, contentType = 'application/pdf'): string {
    const record = this.moduleRecords(module).get(id);
    if (!record) throw new Error(`no ${module} record ${id}`);
    const attachment: ZohoAttachment = { id: this.newId(), fileName, size: bytes.length, contentType, bytes, createdTime: zohoTime(), framing: null };
    record.attachments.push(attachment);
    return attachment.id;
  }

  /** Adds a note as someone else would (in Zoho's UI); returns the note id. */
  addNoteByHand(module: ZohoModule, id: string, title: string, content: string): string {
    const record = this.moduleRecords(module).get(id);
    if (!record) throw new Error(`no ${module} record ${id}`);
    const note: ZohoNote = { id: this.newId(), title, content, createdTime: zohoTime() };
    record.notes.push(note);
    return note.id;
  }

  attachmentsOf(module: ZohoModule, id: string): ZohoAttachment[] {
    return [...(this.moduleRecords(module).get(id)?.attachments ?? [])];
  }

  notesOf(module: ZohoModule, id: string): ZohoNote[] {
    return [...(this.moduleRecords(module).get(id)?.notes ?? [])];
  }

  private moduleRecords(module: ZohoModule): Map<string, StoredRecord> {
    const records = this.records.get(module);
    if (!records) throw new Error(`unknown Zoho module ${module}`);
    return records;
  }

  private newId(): string {
    return `4150868000${String(this.nextId++).padStart(9, '0')}`;
  }

  // --- accounts: authorization ---

  private authorize(req: SimRequest): SimResponse {
    const request = this.authorizationRequest(req.query);
    if ('status' in request) return request;
    if (this.autoApprove) return this.approve(request);
    const clientName = request.client.name ?? request.client.clientId;
    return consentPage({ clientName, scopes: request.scopes, params: req.query, approveAction: APPROVE_PATH, rejectAction: REJECT_PATH });
  }

  /** The consent page's Accept or Reject: its form carries the authorization request back, checked again. */
  private decide(req: SimRequest, approved: boolean): SimResponse {
    const request = this.authorizationRequest(paramsOf(req));
    if ('status' in request) return request;
    return approved ? this.approve(request) : this.reject(request);
  }

  /** A request that fails a check gets an error page rather than a redirect, as Zoho does: the redirect URI is not yet trusted. */
  private authorizationRequest(params: URLSearchParams): AuthorizationRequest | SimResponse {
    const client = this.clients.get(params.get('client_id') ?? '');
    if (!client) return errorPage(400, 'Invalid Client: no client has this client_id.');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!client.redirectUris.includes(redirectUri)) return errorPage(400, 'Invalid Redirect Uri: it is not one registered for this client.');
    if (params.get('response_type') !== 'code') return errorPage(400, 'Invalid response_type: it must be code.');
    const scopes = parseScopes(params.get('scope'));
    if (scopes.length === 0) return errorPage(400, 'Invalid OAuth Scope: no scope was given.');
    const unknown = scopes.filter((scope) => !isKnownScope(scope));
    if (unknown.length > 0) return errorPage(400, `Invalid OAuth Scope: ${unknown.join(', ')} is not a scope of Zoho CRM.`);
    return {
      client,
      redirectUri,
      scopes,
      state: params.get('state'),
      offline: params.get('access_type') === 'offline',
      promptConsent: params.get('prompt') === 'consent',
    };
  }

  private approve(request: AuthorizationRequest): SimResponse {
    const code = zohoToken();
    const { client, redirectUri, scopes, offline, promptConsent } = request;
    this.codes.set(code, {
      clientId: client.clientId,
      redirectUri,
      scopes,
      offline,
      promptConsent,
      account: this.account,
      location: this.dataCenter,
      expiresAt: Date.now() + this.authorizationCodeLifetimeMs,
    });
    this.recordConsent(request, true);
    // Zoho sends the user back naming the data centre of their account, whichever accounts server they started at.
    return redirect(redirectUri, { code, location: this.dataCenter, 'accounts-server': this.accountsOf(this.dataCenter).url, state: request.state });
  }

  private reject(request: AuthorizationRequest): SimResponse {
    this.recordConsent(request, false);
    return redirect(request.redirectUri, { error: 'access_denied', state: request.state });
  }

  private recordConsent({ client, redirectUri, scopes, state }: AuthorizationRequest, approved: boolean): void {
    this.consents.push({ clientId: client.clientId, redirectUri, scopes, state, approved });
  }

  // --- accounts: tokens ---

  private grant(req: SimRequest, location: string): SimResponse {
    const params = paramsOf(req);
    switch (params.get('grant_type')) {
      case 'refresh_token':
        return this.refreshGrant(params, location);
      case 'authorization_code':
        return this.codeGrant(params, location);
      default:
        return oauthError('unsupported_grant_type');
    }
  }

  private refreshGrant(params: URLSearchParams, location: string): SimResponse {
    const refreshToken = params.get('refresh_token') ?? '';
    const grant = this.refreshGrants.get(refreshToken);
    if (!grant || grant.location !== location || this.revoked.has(refreshToken) || !this.authenticates(params, grant.clientId, location)) {
      return oauthError('invalid_code');
    }
    if (this.throttled(refreshToken)) {
      return {
        status: 200,
        body: {
          error: 'Access Denied',
          error_description: 'You have made too many requests continuously. Please try again after some time.',
        },
      };
    }
    return this.tokenAnswer(this.issueAccessToken(refreshToken, grant), null);
  }

  /**
   * The error names are those Zoho's users report it answering (all with status 200): `invalid_client`,
   * `invalid_client_secret`, `invalid_code` (unknown, used or expired code) and `invalid_redirect_uri`.
   */
  private codeGrant(params: URLSearchParams, location: string): SimResponse {
    const client = this.clients.get(params.get('client_id') ?? '');
    if (!client) return oauthError('invalid_client');
    if (params.get('client_secret') !== secretIn(client, location)) return oauthError('invalid_client_secret');
    const code = params.get('code') ?? '';
    const issued = this.codes.get(code);
    if (!issued || issued.clientId !== client.clientId || issued.location !== location || Date.now() >= issued.expiresAt) return oauthError('invalid_code');
    if (params.get('redirect_uri') !== issued.redirectUri) return oauthError('invalid_redirect_uri');
    this.codes.delete(code);
    // Only an offline authorization (access_type=offline) yields a refresh token: the user's first for this client, or
    // another when prompt=consent asked the user again.
    const consentKey = `${client.clientId} ${issued.account.userId}`;
    const firstOffline = issued.offline && !this.offlineConsents.has(consentKey);
    if (issued.offline) this.offlineConsents.add(consentKey);
    const refreshToken =
      firstOffline || (issued.offline && issued.promptConsent) ? this.newRefreshToken(client.clientId, issued.scopes, issued.account, location) : null;
    return this.tokenAnswer(this.issueAccessToken(refreshToken, { scopes: issued.scopes, account: issued.account }), refreshToken);
  }

  private authenticates(params: URLSearchParams, clientId: string, location: string): boolean {
    const client = this.clients.get(clientId);
    return params.get('client_id') === clientId && client !== undefined && params.get('client_secret') === secretIn(client, location);
  }

  /** Counts a token request against the refresh token's allowance; true when it is spent. */
  private throttled(refreshToken: string): boolean {
    const now = Date.now();
    const recent = (this.grantTimes.get(refreshToken) ?? []).filter((t) => now - t < THROTTLE_WINDOW_MS);
    this.grantTimes.set(refreshToken, recent);
    if (recent.length >= this.throttleLimit) return true;
    recent.push(now);
    return false;
  }

  private newRefreshToken(clientId: string, scopes: string[], account: ZohoUserAccount, location = this.dataCenter): string {
    const refreshToken = zohoToken();
    this.refreshGrants.set(refreshToken, { clientId, location, scopes, account });
    return refreshToken;
  }

  private issueAccessToken(refreshToken: string | null, grant: { scopes: string[]; account: ZohoUserAccount }): string {
    const accessToken = zohoToken();
    this.tokens.set(accessToken, {
      refreshToken,
      scopes: grant.scopes,
      account: grant.account,
      expiresAt: Date.now() + this.tokenLifetimeSeconds * 1000,
      expired: false,
    });
    this.issued += 1;
    return accessToken;
  }

  private tokenAnswer(accessToken: string, refreshToken: string | null): SimResponse {
    const scopes = this.tokens.get(accessToken)?.scopes ?? [];
    const lifetime = this.legacyExpiresInMs
      ? { expires_in_sec: this.tokenLifetimeSeconds, expires_in: this.tokenLifetimeSeconds * 1000 }
      : { expires_in: this.tokenLifetimeSeconds };
    const refresh = refreshToken ? { refresh_token: refreshToken } : {};
    return {
      status: 200,
      body: {
        access_token: accessToken,
        ...refresh,
        ...(this.scopeInTokenAnswers ? { scope: scopes.join(' ') } : {}),
        api_domain: this.answeredApiDomain ?? this.apiDomain,
        token_type: 'Bearer',
        ...lifetime,
      },
    };
  }

  /**
   * Zoho's revoke endpoint takes a refresh token (which takes its access tokens with it) or an access token, and answers
   * `{"status":"success"}`, or status 400 for a token it does not know. Zoho documents no body for the 400; this one is
   * the simulator's.
   */
  private revoke(req: SimRequest, location: string): SimResponse {
    const token = paramsOf(req).get('token') ?? '';
    const accessToken = this.tokens.get(token);
    const grant = this.refreshGrants.get(token);
    if (grant && grant.location === location && !this.revoked.has(token)) this.revokeRefreshToken(token);
    else if (accessToken && !accessToken.expired) accessToken.expired = true;
    else return { status: 400, body: { error: 'invalid_token' } };
    this.revokedTokens.push(token);
    return { status: 200, body: { status: 'success' } };
  }

  // --- API ---

  /** A call with a valid token holding the scopes `target` needs under `scopeReading`, else Zoho's refusal. */
  private authed(target: (req: SimRequest) => ScopedCall, handler: (req: SimRequest, token: IssuedToken) => SimResponse | Promise<SimResponse>): SimHandler {
    return (req) => {
      const header = String(req.headers.authorization ?? '');
      if (!header) {
        return { status: 401, body: zohoError('AUTHENTICATION_FAILURE', 'Authentication failed') };
      }
      const match = /^Zoho-oauthtoken\s+(\S+)$/i.exec(header);
      const token = match ? this.tokens.get(match[1]) : undefined;
      if (!token || token.expired || Date.now() >= token.expiresAt) {
        return { status: 401, body: zohoError('INVALID_TOKEN', 'invalid oauth token') };
      }
      if (this.scopeMismatch || lacking(token.scopes, requiredScopes(target(req), this.scopeReading)).length > 0) {
        const message = this.scopeMismatchStatus === 403 ? 'required oauth scope is missing' : 'invalid oauth scope to access this URL';
        return { status: this.scopeMismatchStatus, body: zohoError('OAUTH_SCOPE_MISMATCH', message) };
      }
      return handler(req, token);
    };
  }

  /** GET /crm/v8/org (crm-oas v8 org.yaml); a user in no CRM organization gets no organization (204, no body). */
  private org(token: IssuedToken): SimResponse {
    const org = token.account.org;
    if (!org) return { status: 204 };
    return {
      status: 200,
      body: { org: [{ id: org.id, company_name: org.name, primary_email: token.account.email, type: 'production', time_zone: this.orgTimeZone }] },
    };
  }

  /** GET /crm/v8/users?type=CurrentUser (users.yaml): the user the token was issued to. */
  private users(req: SimRequest, token: IssuedToken): SimResponse {
    if (req.query.get('type') !== 'CurrentUser') {
      return { status: 400, body: zohoError('INVALID_DATA', 'invalid data', { param_name: 'type' }) };
    }
    if (!token.account.org) return { status: 204 };
    const { userId, email, fullName } = token.account;
    return { status: 200, body: { users: [{ id: userId, email, full_name: fullName, status: 'active' }], info: { count: 1, more_records: false } } };
  }

  /** Resolves the `:module/:id` of a path, or the error Zoho answers. */
  private findRecord(req: SimRequest): StoredRecord | SimResponse {
    const { module, id } = req.params;
    if (!isModule(module)) return invalidModule();
    return this.moduleRecords(module).get(id) ?? invalidRecord();
  }

  private listRecords(req: SimRequest): SimResponse {
    const { module } = req.params;
    if (!isModule(module)) return invalidModule();
    return getRecords(req, [...this.moduleRecords(module).values()], {
      pageRecordsLimit: this.pageRecordsLimit,
      tokenRecordsLimit: this.tokenRecordsLimit,
    });
  }

  private getRecord(req: SimRequest): SimResponse {
    const { module, id } = req.params;
    if (!isModule(module)) return invalidModule();
    const record = this.moduleRecords(module).get(id);
    if (!record) return this.missingRecordStyle === 'no-content' ? { status: 204 } : invalidRecord();
    // Every Deal has a layout and a pipeline in Zoho: the standard ones unless it names its own.
    const standard = module === 'Deals' ? { Layout: { ...STANDARD_LAYOUT }, Pipeline: STANDARD_PIPELINE } : {};
    const times = { Created_Time: zohoTime(record.createdAt), Modified_Time: zohoTime(record.modifiedAt) };
    return { status: 200, body: { data: [this.revenue.shownRecord(module, { id: record.id, ...standard, ...times, ...record.fields })] } };
  }

  private async upload(req: SimRequest): Promise<SimResponse> {
    const record = this.findRecord(req);
    if ('status' in record) return record;
    const { files } = await parseMultipart(req.headers, req.body);
    const file = files.find((f) => f.field === 'file');
    if (!file) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'file' }) };
    }
    if (file.bytes.length > this.maxAttachmentBytes) {
      return {
        status: 413,
        body: zohoError('FILE_SIZE_MORE_THAN_ALLOWED_SIZE', 'Please check if the size of the file is in the correct range'),
      };
    }
    const createdTime = zohoTime();
    const attachment: ZohoAttachment = {
      id: this.newId(),
      fileName: file.filename,
      size: file.bytes.length,
      contentType: file.contentType,
      bytes: file.bytes,
      createdTime,
      framing: framingOf(req),
    };
    record.attachments.push(attachment);
    return {
      status: 200,
      body: {
        data: [
          {
            code: 'SUCCESS',
            details: { id: attachment.id, Modified_Time: createdTime, Created_Time: createdTime },
            message: 'attachment uploaded successfully',
            status: 'success',
          },
        ],
      },
    };
  }

  private listAttachments(req: SimRequest): SimResponse {
    const fields = req.query.get('fields');
    if (!fields) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'fields' }) };
    }
    const record = this.findRecord(req);
    if ('status' in record) return record;
    if (record.attachments.length === 0) return this.emptyList(req);

    const paged = this.pageOf(req, record.attachments);
    if ('status' in paged) return paged;
    const { slice, info } = paged;

    const wanted = new Set(['id', ...fields.split(',').map((f) => f.trim())]);
    const data = slice.map((a) => {
      const full: Record<string, unknown> = {
        id: a.id,
        File_Name: a.fileName,
        Size: String(a.size),
        Created_Time: a.createdTime,
        Modified_Time: a.createdTime,
        Parent_Id: { module: { api_name: req.params.module }, id: record.id },
      };
      return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.has(key)));
    });
    return { status: 200, body: { data, info } };
  }

  private emptyList(req: SimRequest): SimResponse {
    if (this.emptyListStyle === 'no-content') return { status: 204 };
    const perPage = Math.min(this.maxPerPage, Number(req.query.get('per_page') ?? this.defaultPerPage) || this.defaultPerPage);
    const info = { per_page: perPage, next_page_token: null, count: 0, page: 1, previous_page_token: null, page_token_expiry: null, more_records: false };
    return { status: 200, body: { data: [], info } };
  }

  /**
   * One page of a related list: by `page` (and `per_page`) up to `pageRecordsLimit` records, past that only by the
   * `page_token` an earlier page offered in `info.next_page_token` (an opaque string; here the offset).
   */
  private pageOf<T>(req: SimRequest, items: T[], paging: 'tokens' | 'numbers' = 'tokens'): { slice: T[]; info: Record<string, unknown> } | SimResponse {
    const perPage = Math.min(this.maxPerPage, Number(req.query.get('per_page') ?? this.defaultPerPage) || this.defaultPerPage);
    const pageToken = req.query.get('page_token');
    let start: number;
    if (pageToken && paging === 'numbers') {
      return { status: 400, body: zohoError('INVALID_DATA', 'the given parameter is not supported', { param_name: 'page_token' }) };
    }
    if (pageToken) {
      start = Number(Buffer.from(pageToken, 'base64url').toString());
      if (!Number.isInteger(start) || start < 0) {
        return { status: 400, body: zohoError('INVALID_DATA', 'the given page_token is invalid', { param_name: 'page_token' }) };
      }
    } else {
      const page = Number(req.query.get('page') ?? 1) || 1;
      start = (page - 1) * perPage;
      if (paging === 'tokens' && start >= this.pageRecordsLimit) {
        return {
          status: 400,
          body: zohoError(
            'DISCRETE_PAGINATION_LIMIT_EXCEEDED',
            `The limit for discrete pagination has been exceeded; use page_token past ${this.pageRecordsLimit} records`,
            {
              limit: this.pageRecordsLimit,
            },
          ),
        };
      }
    }
    const slice = items.slice(start, start + perPage);
    const more = start + perPage < items.length;
    const info: Record<string, unknown> = { per_page: perPage, count: slice.length, page: Math.floor(start / perPage) + 1, more_records: more };
    if (more && paging === 'tokens') info.next_page_token = Buffer.from(String(start + perPage)).toString('base64url');
    return { slice, info };
  }

  private download(req: SimRequest): SimResponse {
    const record = this.findRecord(req);
    if ('status' in record) return record;
    const attachment = record.attachments.find((a) => a.id === req.params.attId);
    // Zoho's v8 attachments OpenAPI file: an attachment id it does not know is 404 INVALID_DATA.
    if (!attachment) return { status: 404, body: zohoError('INVALID_DATA', 'the id given seems to be invalid') };
    return {
      status: 200,
      raw: attachment.bytes,
      headers: {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment;filename="${attachment.fileName}"`,
      },
    };
  }

  /**
   * The Notes related list of a record: `fields` mandatory, 204 when there are none, paged as the SDK pages related
   * records (GetNotesParam: `page`, `per_page`, `fields`; no `page_token`, which is refused).
   */
  private listNotes(req: SimRequest): SimResponse {
    const fields = req.query.get('fields');
    if (!fields) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'fields' }) };
    }
    const record = this.findRecord(req);
    if ('status' in record) return record;
    if (record.notes.length === 0) return this.emptyList(req);
    const paged = this.pageOf(req, record.notes, 'numbers');
    if ('status' in paged) return paged;
    const { slice, info } = paged;
    const wanted = new Set(['id', ...fields.split(',').map((f) => f.trim())]);
    const data = slice.map((n) => {
      const full: Record<string, unknown> = { id: n.id, Note_Title: n.title, Note_Content: n.content, Created_Time: n.createdTime };
      return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.has(key)));
    });
    return { status: 200, body: { data, info } };
  }

  private addNotes(req: SimRequest): SimResponse {
    const data = (req.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data) || data.length === 0) {
      return { status: 400, body: zohoError('INVALID_DATA', 'body is not a valid data array', {}) };
    }
    const results = data.map((item: unknown, i) => this.addNote(item, i));
    const anyAdded = results.some((r) => r.status === 'success');
    return { status: anyAdded ? this.notesSuccessStatus : this.notesFailureStatus, body: { data: results } };
  }

  private addNote(item: unknown, index: number): Record<string, unknown> {
    const note = (item ?? {}) as { Note_Title?: unknown; Note_Content?: unknown; Parent_Id?: { module?: { api_name?: unknown }; id?: unknown } };
    const parent = note.Parent_Id;
    if (!parent || parent.id === undefined || parent.module?.api_name === undefined) {
      return zohoError('MANDATORY_NOT_FOUND', 'required field not found', {
        api_name: 'Parent_Id',
        json_path: `$.data[${index}].Parent_Id`,
      });
    }
    const module = String(parent.module.api_name);
    const record = isModule(module) ? this.moduleRecords(module).get(String(parent.id)) : undefined;
    if (!record) {
      return zohoError('INVALID_DATA', 'the related id given seems to be invalid', {
        api_name: 'Parent_Id',
        json_path: `$.data[${index}].Parent_Id`,
      });
    }
    const createdTime = zohoTime();
    const stored: ZohoNote = {
      id: this.newId(),
      title: String(note.Note_Title ?? ''),
      content: String(note.Note_Content ?? ''),
      createdTime,
    };
    record.notes.push(stored);
    return {
      code: 'SUCCESS',
      details: { id: stored.id, Created_Time: createdTime, Modified_Time: createdTime },
      message: 'record added',
      status: 'success',
    };
  }
}
