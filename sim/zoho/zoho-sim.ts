import { SimServer, type RecordedRequest, type SimHandler, type SimRequest, type SimResponse } from '../common/sim-server.js';
import { getRecords } from './get-records.js';
import { SELF_CLIENT_SCOPES, type ScopedCall, type ScopeReading } from './scopes.js';
import { STANDARD_LAYOUT, STANDARD_PIPELINE, ZohoRevenueSim } from './revenue.js';
import { searchRecords } from './zoho-search.js';
import { runCoql, type QueryableModule } from './coql.js';
import { APPROVE_PATH, AUTHORIZATION_CODE_LIFETIME_MS, AUTHORIZE_PATH, REJECT_PATH, ZohoAccounts } from './accounts.js';
import { ZohoRelatedLists } from './related-lists.js';
import { ZohoNotificationsSim } from './notifications.js';
import { breach, noSuchRoute, ruleFor, ZOHO_ROUTE_RULES, type RouteRule } from './route-rules.js';
import {
  invalidModule,
  invalidRecord,
  isModule,
  ZOHO_MODULES,
  zohoError,
  zohoTime,
  type IssuedToken,
  type StoredRecord,
  type ZohoAttachment,
  type ZohoConsent,
  type ZohoModule,
  type ZohoNote,
  type ZohoOAuthClient,
  type ZohoSimOptions,
  type ZohoUserAccount,
  REP,
  type MinifiedUser,
} from './zoho-types.js';

// The simulator's parts, each in its own file: accounts.ts (OAuth), related-lists.ts (attachments and notes),
// revenue.ts (products, quotes, deal updates), get-records.ts, zoho-search.ts and coql.ts (reading records).
export { AUTHORIZATION_CODE_LIFETIME_MS } from './accounts.js';
export { ZOHO_MODULES, zohoError } from './zoho-types.js';
export type { ZohoAttachment, ZohoConsent, ZohoModule, ZohoNote, ZohoOAuthClient, ZohoSimOptions, ZohoUserAccount } from './zoho-types.js';

/** The fields of each module a query may name before any record holds them (Zoho's standard API names). */
const MODULE_FIELDS: Record<ZohoModule, readonly string[]> = {
  Deals: ['Deal_Name', 'Stage', 'Amount', 'Closing_Date', 'Pipeline', 'Layout', 'Account_Name', 'Contact_Name', 'Owner', 'Modified_Time', 'Created_Time'],
  Quotes: ['Subject', 'Deal_Name', 'Account_Name', 'Contact_Name', 'Quote_Stage', 'Sub_Total', 'Grand_Total', 'Modified_Time', 'Created_Time'],
  Leads: ['Last_Name', 'First_Name', 'Full_Name', 'Email', 'Phone', 'Mobile', 'Company', 'Modified_Time', 'Created_Time'],
  Contacts: ['Last_Name', 'First_Name', 'Full_Name', 'Email', 'Phone', 'Mobile', 'Account_Name', 'Modified_Time', 'Created_Time'],
};

/** Subforms COQL reads as modules of their own, by their parent module (whose scope they fall under). */
const SUBFORM_PARENTS: Record<string, string> = { Quoted_Items: 'Quotes' };

/**
 * The module whose scope a COQL query needs (its `from`; a subform's parent: Zoho asks no
 * `ZohoCRM.modules.Quoted_Items.READ`, a scope its material never names); '' when there is none.
 */
function coqlModule(body: unknown): string {
  const query = (body as { select_query?: unknown } | undefined)?.select_query;
  const from = typeof query === 'string' ? (/\bfrom\s+([A-Za-z_]\w*)/i.exec(query)?.[1] ?? '') : '';
  return SUBFORM_PARENTS[from] ?? from;
}

/**
 * Zoho CRM: its OAuth accounts server (`accounts`) and its v8 REST API (`api`), each a real HTTP server.
 * Follows docs/zoho-crm.md; where the sources are unsure, a switch picks the reading.
 */
export class ZohoSim {
  readonly accounts = new SimServer('zoho-accounts');
  readonly api = new SimServer('zoho-api');
  /** Products, Quotes and Deal updates (revenue.ts). */
  readonly revenue: ZohoRevenueSim;
  /** Notification channels and the notifications they send (notifications.ts). */
  readonly notifications = new ZohoNotificationsSim(() => this.apiDomain);

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
  /**
   * How `GET /crm/v8/Deals/{id}` names a Deal's layout: `$layout_id` (`{id, name, display_label}`, as crm-oas v8
   * updateRecord answers and captured real answers show, with no `Layout`), `Layout` (`{id, name}`), or both. No
   * published file settles it: the client reads either.
   */
  dealLayoutKey: '$layout_id' | 'Layout' | 'both' = '$layout_id';
  /** How `GET /crm/v8/{Module}/{id}` answers an id it does not know. */
  missingRecordStyle: 'no-content' | 'invalid-data' = 'no-content';
  /** Zoho v8 takes an upload request of up to 100 MB (its body, the file and its multipart framing); a larger one is 413 FILE_SIZE_MORE_THAN_ALLOWED_SIZE. */
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
  /** The rows of the routes the API serves (route-rules.ts); a test may take one out. */
  routeRules: readonly RouteRule[] = ZOHO_ROUTE_RULES;
  /** The rows requests fell under, and the requests that fell under none (each refused 404). */
  readonly rulesServed = new Set<RouteRule>();
  readonly unruled: string[] = [];
  /** Every decision on the consent page, in order. */
  readonly consents: ZohoConsent[] = [];
  /** The tokens revoked through `POST /oauth/v2/token/revoke`, in order (not those revoked by `revokeRefreshToken`). */
  readonly revokedTokens: string[] = [];

  /** Every data centre's accounts server, by `location`; the first data centre's is `accounts`. */
  private readonly accountsServers = new Map<string, SimServer>();
  private readonly oauth = new ZohoAccounts(this);
  private readonly relatedLists: ZohoRelatedLists = new ZohoRelatedLists(this, {
    findRecord: (req) => this.findRecord(req),
    moduleRecords: (module) => this.moduleRecords(module),
    newId: () => this.newId(),
  });
  private readonly records = new Map<ZohoModule, Map<string, StoredRecord>>(ZOHO_MODULES.map((m) => [m, new Map()]));
  private nextId = 5277036n;

  /**
   * The daemon's environment that points it at this simulator, signed in as the default client (docs/configuration.md).
   * The simulator listens on 127.0.0.1, not on Zoho's hosts, so custom domains are allowed.
   */
  daemonEnv(): Record<string, string> {
    return {
      RECORD_CRM_ACCOUNTS_URL: this.accountsUrl,
      RECORD_CRM_API_DOMAIN: this.apiDomain,
      RECORD_CRM_CLIENT_ID: this.clientId,
      RECORD_CRM_CLIENT_SECRET: this.clientSecret,
      RECORD_CRM_REFRESH_TOKEN: this.refreshToken,
      RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'true',
    };
  }

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
    this.oauth.refreshGrants.set(this.refreshToken, { clientId: this.clientId, location: this.dataCenter, scopes: SELF_CLIENT_SCOPES, account: this.account });

    for (const [location, server] of this.accountsServers) {
      server.route('GET', AUTHORIZE_PATH, (req) => this.oauth.authorize(req));
      server.route('POST', APPROVE_PATH, (req) => this.oauth.decide(req, true));
      server.route('POST', REJECT_PATH, (req) => this.oauth.decide(req, false));
      server.route('POST', '/oauth/v2/token', (req) => this.oauth.grant(req, location));
      server.route('POST', '/oauth/v2/token/revoke', (req) => this.oauth.revoke(req, location));
    }

    // Revenue (revenue.ts): before the `/:module/:id` routes, which would take `Products/search` and `settings/fields`.
    this.revenue = new ZohoRevenueSim({
      authed: (call, handler) =>
        this.authed(
          () => call,
          (req) => handler(req),
        ),
      records: (module) => this.moduleRecords(module),
      apiUser: () => ({ name: this.account.fullName, id: this.account.userId, email: this.account.email }),
      addRecord: (module, id, fields) =>
        this.addRecord(module, id, fields, new Date(), { name: this.account.fullName, id: this.account.userId, email: this.account.email }),
      newId: () => this.newId(),
      indexed: (writtenAt) => this.indexed(writtenAt),
      edited: (module, id, fields) => this.notifications.recordChanged(module, 'edit', id, fields),
    });
    this.revenue.install(this.api);
    this.notifications.install(this.api, (call, handler) =>
      this.authed(
        () => call,
        (req) => handler(req),
      ),
    );
    this.api.route(
      'POST',
      '/crm/v8/Notes',
      this.authed(
        () => ({ call: 'add_note' }),
        (req) => this.relatedLists.addNotes(req),
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
    // Zoho's web app's page of a record (`https://crm.zoho.com/crm/org<org id>/tab/<module_name>/<id>`: the org's id and
    // the module's name in web addresses, `module_name` of GET /settings/modules, e.g. Potentials for Deals), where
    // crm-sync's links lead: served on the API domain, which the daemon uses as the web origin of an API domain that is
    // not Zoho's. Another org's id, or a module's API name where its web name differs, finds no page.
    this.api.route('GET', '/crm/:org/tab/:module/:id', (req) => {
      const module = this.revenue.moduleOfWebName(req.params.module);
      const record = req.params.org === `org${this.account.org?.id}` && module ? this.records.get(module as ZohoModule)?.get(req.params.id) : undefined;
      if (!record) return { status: 404, raw: Buffer.from('no such record'), headers: { 'content-type': 'text/plain' } };
      const name = String(record.fields.Deal_Name ?? record.fields.Full_Name ?? record.fields.Subject ?? record.id);
      const text = `${module} ${record.id}: ${name}`.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
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
        (req) => this.relatedLists.upload(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Attachments',
      this.authed(
        (req) => ({ call: 'list_attachments', module: req.params.module }),
        (req) => this.relatedLists.listAttachments(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Attachments/:attId',
      this.authed(
        (req) => ({ call: 'list_attachments', module: req.params.module }),
        (req) => this.relatedLists.download(req),
      ),
    );
    this.api.route(
      'GET',
      '/crm/v8/:module/:id/Notes',
      this.authed(
        (req) => ({ call: 'list_notes', module: req.params.module }),
        (req) => this.relatedLists.listNotes(req),
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
    return this.oauth.issued;
  }

  get tokenRequests(): RecordedRequest[] {
    return this.accounts.requestsTo('POST', '/oauth/v2/token');
  }

  /** Registers an OAuth client, replacing one with the same id. */
  registerClient(client: ZohoOAuthClient): void {
    this.oauth.registerClient(client);
  }

  /** Adds a redirect URI to a registered client (the default one unless named), e.g. the daemon's once its port is known. */
  addRedirectUri(redirectUri: string, clientId = this.clientId): void {
    this.oauth.addRedirectUri(redirectUri, clientId);
  }

  /** The scopes of the latest approved consent; empty before any. */
  get grantedScopes(): string[] {
    return [...(this.consents.findLast((c) => c.approved)?.scopes ?? [])];
  }

  /** The scopes a refresh token was granted (the configured one: SELF_CLIENT_SCOPES); undefined for a token never issued. */
  scopesOf(refreshToken: string): string[] | undefined {
    return this.oauth.scopesOf(refreshToken);
  }

  /** A refresh token of the default client, as a consent with these scopes by `account` (the current one) would give. */
  issueRefreshToken(scopes: string[], account: ZohoUserAccount = this.account): string {
    return this.oauth.newRefreshToken(this.clientId, [...scopes], account);
  }

  /** Revokes a refresh token (the configured one by default) and the access tokens it gave. */
  revokeRefreshToken(refreshToken = this.refreshToken): void {
    this.oauth.revokeRefreshToken(refreshToken);
  }

  expireAllTokens(): void {
    this.oauth.expireAllTokens();
  }

  /**
   * A call with a valid token holding the scopes `target` needs under `scopeReading` (else Zoho's refusal, accounts.ts)
   * that keeps its row of `routeRules` (else the row's error; no row: 404 INVALID_URL_PATTERN).
   */
  private authed(target: (req: SimRequest) => ScopedCall, handler: (req: SimRequest, token: IssuedToken) => SimResponse | Promise<SimResponse>): SimHandler {
    return this.oauth.authed(target, (req, token) => {
      const rule = ruleFor(this.routeRules, req.method, req.path);
      if (!rule) {
        this.unruled.push(`${req.method} ${req.path}`);
        return noSuchRoute();
      }
      this.rulesServed.add(rule);
      return breach(rule, req) ?? handler(req, token);
    });
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
  addRecord(module: ZohoModule, id?: string, fields: Record<string, unknown> = {}, at: Date = new Date(), by: MinifiedUser = REP): string {
    const recordId = id ?? this.newId();
    const time = at.getTime();
    this.moduleRecords(module).set(recordId, { id: recordId, fields, createdAt: time, modifiedAt: time, modifiedBy: by, attachments: [], notes: [] });
    this.notifications.recordChanged(module, 'create', recordId);
    return recordId;
  }

  /** Changes a record's fields as someone would in Zoho's UI, setting its Modified_Time to `at` (now by default). */
  modifyRecord(module: ZohoModule, id: string, changes: Record<string, unknown>, at: Date = new Date(), by: MinifiedUser = REP): void {
    const record = this.moduleRecords(module).get(id);
    if (!record) throw new Error(`no ${module} record ${id}`);
    record.fields = { ...record.fields, ...changes };
    record.modifiedAt = at.getTime();
    record.modifiedBy = by;
    this.notifications.recordChanged(module, 'edit', id, Object.keys(changes));
  }

  /** Who changed a record last (its Modified_By), for checks of who wrote what; undefined when there is no such record. */
  lastModifier(module: ZohoModule, id: string): MinifiedUser | undefined {
    const record = this.moduleRecords(module).get(id);
    return record ? (record.modifiedBy ?? REP) : undefined;
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

  // --- API: the organization, the user, records ---

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
    // A Deal's Layout and Pipeline as a single GET shows them: the standard ones unless it names its own.
    const standard = module === 'Deals' ? { Layout: { ...STANDARD_LAYOUT }, Pipeline: STANDARD_PIPELINE } : {};
    return getRecords(
      req,
      [...this.moduleRecords(module).values()].map((r) => ({ ...r, fields: { ...standard, ...r.fields } })),
      {
        pageRecordsLimit: this.pageRecordsLimit,
        tokenRecordsLimit: this.tokenRecordsLimit,
      },
    );
  }

  private getRecord(req: SimRequest): SimResponse {
    const { module, id } = req.params;
    if (!isModule(module)) return invalidModule();
    const record = this.moduleRecords(module).get(id);
    if (!record) return this.missingRecordStyle === 'no-content' ? { status: 204 } : invalidRecord();
    const times = { Created_Time: zohoTime(record.createdAt), Modified_Time: zohoTime(record.modifiedAt), Modified_By: record.modifiedBy ?? REP };
    const { Layout: ownLayout, ...fields } = record.fields;
    const shown: Record<string, unknown> = { id: record.id, ...times, ...fields };
    if (module === 'Deals') {
      // Every Deal has a layout and a pipeline in Zoho: the standard ones unless it names its own.
      const layoutId = (ownLayout as { id?: string } | undefined)?.id ?? STANDARD_LAYOUT.id;
      const layout = this.revenue.layouts.get(layoutId);
      const name = layout?.name ?? STANDARD_LAYOUT.name;
      if (this.dealLayoutKey !== 'Layout') shown.$layout_id = { id: layoutId, name, display_label: name };
      if (this.dealLayoutKey !== '$layout_id') shown.Layout = { id: layoutId, name };
      shown.Pipeline ??= layout?.pipelines.find((p) => p.default)?.name ?? STANDARD_PIPELINE;
    } else if (ownLayout !== undefined) shown.Layout = ownLayout;
    return { status: 200, body: { data: [this.revenue.shownRecord(module, shown)] } };
  }
}
