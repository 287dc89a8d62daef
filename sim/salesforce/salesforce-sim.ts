/**
 * A Salesforce org as a real HTTP server pair: a login host (OAuth) and an instance host (the REST API), built from
 * Salesforce's REST API Developer Guide (https://developer.salesforce.com/docs/platform/api-rest/guide/); each
 * behaviour cites its page. Its default schema is improveit 360's classic objects (schema.ts), changeable per test.
 */
import { SimServer, type SimHandler, type SimRequest, type SimResponse } from '../common/sim-server.js';
import { SObjectCollections } from './collections.js';
import { contentVersionUpload, SalesforceFiles, type SfFile } from './files.js';
import { DEFAULT_SCOPES, SalesforceOAuth, type AccessGrant, type ConnectedApp, type SfConsent } from './oauth.js';
import { QueryCursors } from './query-cursors.js';
import { isRequired, SfRecords, SfWriteError, sfDateTime } from './records.js';
import { errorBody, jsonObject, notFound } from './responses.js';
import { to18 } from './ids.js';
import { SfSchema, type I360Namespace, type SfField, type SfObject, type SfValidationRule } from './schema.js';
import { calculatedValue, parseSoql, recordOf, runSoql, SoqlError, type Row, type SoqlData } from './soql.js';

export type { SfFile } from './files.js';

export interface SalesforceSimOptions {
  clientId?: string;
  clientSecret?: string;
  /** `i360__` (classic, the default) or `i360core__` (Lightning), or a schema of the test's own. */
  schema?: I360Namespace | SfSchema;
  /** The Connected App's OAuth scopes; leave out `api` for a consent that cannot call the REST API. */
  scopes?: string[];
  /** The org's daily API request allocation (Sforce-Limit-Info's second number). */
  apiRequestLimit?: number;
  autoApprove?: boolean;
}

const entityIsDeleted = () => errorBody(404, 'ENTITY_IS_DELETED', 'entity is deleted', []);

/**
 * The REST API versions this org answers, 50.0 (Winter '21) to 68.0 (Winter '27), each labelled with its release
 * (Versions resource: https://developer.salesforce.com/docs/platform/api-rest/guide/resources-versions.html); any other
 * version in a URL is NOT_FOUND.
 */
const VERSIONS = Array.from({ length: 19 }, (_, i) => 50 + i).map((n) => ({
  label: `${['Winter', 'Spring', 'Summer'][(n - 50) % 3]} '${21 + Math.floor((n - 50) / 3)}`,
  url: `/services/data/v${n}.0`,
  version: `${n}.0`,
}));
const isVersion = (segment: string) => VERSIONS.some((v) => `v${v.version}` === segment);

/** A query's batch: 2,000 by default, `Sforce-Query-Options: batchSize=N` asks 200 to 2,000 (Query Options Header page). */
const DEFAULT_BATCH_SIZE = 2000;
const MIN_BATCH_SIZE = 200;

export class SalesforceSim {
  readonly login = new SimServer('salesforce-login');
  readonly instance = new SimServer('salesforce-instance');
  readonly oauth: SalesforceOAuth;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A refresh token of the default Connected App, as if an admin had consented (envFor() hands it to the daemon). */
  readonly refreshToken: string;
  schema: SfSchema;
  records: SfRecords;
  readonly orgId: string;
  readonly userId: string;
  /** Requests counted against the org's daily allocation, and that allocation (Limit Info Header). */
  apiUsage = 0;
  apiRequestLimit: number;
  /** False: every data call answers 403 API_DISABLED_FOR_ORG (an edition or profile without API access). */
  apiEnabled = true;
  /**
   * Salesforce may answer a query with fewer records than the batch size asked (Query page: "the returned batch can
   * include fewer records than the limit ... based on the size and complexity of records"); tests lower this to page cheaply.
   */
  batchSizeCap = DEFAULT_BATCH_SIZE;
  /**
   * Each data call takes this long (ms) before its answer: a long-running request. Salesforce runs at most 25 of those
   * at once per org and refuses one more with 403 REQUEST_LIMIT_EXCEEDED (Salesforce Developer Limits and Allocations
   * Quick Reference, API Request Limits and Allocations:
   * https://developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm).
   */
  longRequestMs = 0;
  /** Set to override the org's own limit (25, or 5 on Developer Edition and trial orgs: see longRequestLimit). */
  concurrentLongRequestLimit: number | null = null;
  /** The most data calls in flight at once so far (a client's own limit on concurrent requests shows here). */
  maxInFlight = 0;
  /** Data calls being answered now. */
  inFlight = 0;
  private held: Promise<void> | null = null;
  /**
   * Every data call answers 401 INVALID_SESSION_ID with this message while it is set: an org policy that blocks the
   * connection itself (an OAuth or IP policy, a blocked user), which no new token cures. jsforce lists such messages and
   * does not refresh on them (src/http-api.ts, `isSessionExpired`).
   */
  sessionRefusal: string | null = null;
  /**
   * Records locked by another transaction (a trigger, a flow, a user's save): a write to one, or an insert or update
   * whose lookup names one, answers UNABLE_TO_LOCK_ROW. "Every time a record is inserted or updated, Salesforce must
   * lock the target records that are selected for each lookup field" (Salesforce Engineering, "Managing Lookup Skew to
   * Avoid Record Lock Exceptions"); a transaction waits at most 10 s for a lock, and Salesforce advises integrations to
   * retry ("Record-Level Locking", Designing Record Access for Enterprise Scale,
   * https://developer.salesforce.com/docs/atlas.en-us.draes.meta/draes/draes_object_relationships_record_level_locking.htm).
   */
  readonly lockedRecords = new Set<string>();
  /** Writes refused with UNABLE_TO_LOCK_ROW so far. */
  lockRefusals = 0;
  /** Transactions not committed yet: their rows are stamped at their start and visible from `visibleAt` (see commitLate). */
  private readonly uncommitted: Array<{ visibleAt: number; object: string; row: Row }> = [];
  /** The open query cursors (at most 10, 15 minutes idle). */
  readonly cursors = new QueryCursors();
  readonly files = new SalesforceFiles({ records: () => this.records, userId: () => this.userId });
  private readonly collections = new SObjectCollections({
    records: () => this.records,
    userId: () => this.userId,
    deleteRow: (object, id) => this.deleteRow(object, id),
  });
  private readonly ns: I360Namespace | null;

  constructor(options: SalesforceSimOptions = {}) {
    this.ns = options.schema instanceof SfSchema ? null : (options.schema ?? 'i360__');
    this.schema = options.schema instanceof SfSchema ? options.schema : SfSchema.improveit360(this.ns ?? 'i360__');
    this.records = new SfRecords(this.schema);
    this.apiRequestLimit = options.apiRequestLimit ?? 100_000;
    this.clientId = options.clientId ?? '3MVG9sim.salesforce.consumer.key';
    this.clientSecret = options.clientSecret ?? 'salesforce-consumer-secret';
    const at = Date.now();
    this.orgId = this.records.insert(
      this.schema.object('Organization')!,
      { Name: 'Acme Roofing', IsSandbox: false, OrganizationType: 'Enterprise Edition', InstanceName: 'SIM1', TimeZoneSidKey: 'America/Chicago' },
      this.system(at),
    );
    this.userId = this.records.insert(
      this.schema.object('User')!,
      { FirstName: 'Sam', LastName: 'Admin', Name: 'Sam Admin', Email: 'admin@acme.example', Username: 'admin@acme.example', IsActive: true },
      this.system(at),
    );
    // The org and its first user were made before there was a user to name as their creator.
    for (const [object, id] of [
      ['Organization', this.orgId],
      ['User', this.userId],
    ]) {
      this.records.update(
        this.schema.object(object)!,
        id,
        { CreatedById: this.userId, LastModifiedById: this.userId },
        { ...this.system(at), keepStamps: true },
      );
    }
    this.oauth = new SalesforceOAuth({
      orgId: () => this.orgId,
      userId: () => this.userId,
      loginUrl: () => this.login.url,
      instanceUrl: () => this.instance.url,
    });
    this.oauth.autoApprove = options.autoApprove ?? false;
    this.oauth.registerApp({
      clientId: this.clientId,
      clientSecret: this.clientSecret,
      callbackUrls: [],
      scopes: options.scopes ?? DEFAULT_SCOPES,
      name: 'crm-sync',
    });
    this.refreshToken = this.oauth.issueRefreshToken(this.clientId, this.connectedApp.scopes);
    this.routeOAuth();
    this.routeData();
  }

  async start(): Promise<void> {
    await this.login.start();
    await this.instance.start();
  }

  async stop(): Promise<void> {
    await this.login.stop();
    await this.instance.stop();
  }

  get loginUrl(): string {
    return this.login.url;
  }

  get instanceUrl(): string {
    return this.instance.url;
  }

  get connectedApp(): ConnectedApp {
    return this.oauth.app(this.clientId)!;
  }

  get consents(): SfConsent[] {
    return this.oauth.consents;
  }

  /** The daemon's environment for this org, by the name the other simulators give it. */
  daemonEnv(options: { withRefreshToken?: boolean } = {}): Record<string, string> {
    return this.envFor(options);
  }

  /** The daemon's environment for this org: the Salesforce adapter, its login host and Connected App, a refresh token. */
  envFor(options: { withRefreshToken?: boolean } = {}): Record<string, string> {
    return {
      APPOINTMENT_CRM_KIND: 'salesforce',
      APPOINTMENT_CRM_LOGIN_URL: this.login.url,
      APPOINTMENT_CRM_CLIENT_ID: this.clientId,
      APPOINTMENT_CRM_CLIENT_SECRET: this.clientSecret,
      ...(options.withRefreshToken === false ? {} : { APPOINTMENT_CRM_REFRESH_TOKEN: this.refreshToken }),
      APPOINTMENT_CRM_PRESET: this.ns === 'i360core__' ? 'improveit360-lightning' : 'improveit360-classic',
      // The simulator's instance_url is http://127.0.0.1:<port>, not a *.salesforce.com host.
      APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS: 'true',
    };
  }

  /** Lets the Connected App redirect to this callback URL (Salesforce refuses any other). */
  addRedirectUri(uri: string): void {
    const app = this.connectedApp;
    if (!app.callbackUrls.includes(uri)) this.oauth.registerApp({ ...app, callbackUrls: [...app.callbackUrls, uri] });
  }

  /** Changes the Connected App's OAuth scopes (for new consents). */
  setScopes(scopes: string[]): void {
    this.oauth.registerApp({ ...this.connectedApp, scopes });
  }

  /** A refresh token as if a user had consented now (with the app's scopes unless given). */
  issueRefreshToken(scopes: string[] = this.connectedApp.scopes): string {
    return this.oauth.issueRefreshToken(this.clientId, scopes);
  }

  /**
   * Inserts (no `id`) or changes a row in a transaction that commits `visibleInMs` from now: its SystemModstamp is the
   * time the transaction started (`stampedAt`), but no query sees the change before the commit. Salesforce says as much
   * of its own change feeds: getUpdated answers `latestDateCovered`, because "a transaction that started before that
   * time can commit after it" (SOAP API Developer Guide, getUpdated(), sforce_api_calls_getupdated.htm). improveit 360's
   * saves run the package's triggers and flows, which take seconds. Answers the row's id.
   */
  commitLate(object: string, fields: Record<string, unknown>, options: { id?: string; stampedAt?: Date; visibleInMs: number }): string {
    const target = this.mustObject(object);
    const stampedAt = options.stampedAt ?? new Date();
    const before = options.id ? { ...this.records.get(target.name, options.id)! } : undefined;
    const id = options.id ?? this.insertRow(object, fields, stampedAt);
    if (options.id) this.updateRow(object, id, fields, stampedAt);
    const after = this.records.withhold(target.name, id)!;
    if (before) this.records.put(target.name, before);
    this.uncommitted.push({ visibleAt: Date.now() + options.visibleInMs, object: target.name, row: after });
    return id;
  }

  /** Whether a late commit's row is visible yet (commits what is due first). */
  committed(id: string): boolean {
    this.commitDue();
    return !this.uncommitted.some((entry) => entry.row.Id === id || String(entry.row.Id).startsWith(id));
  }

  /** Commits the transactions whose time has come. */
  private commitDue(): void {
    const now = Date.now();
    for (let i = 0; i < this.uncommitted.length;) {
      const entry = this.uncommitted[i];
      if (entry.visibleAt > now) i++;
      else {
        this.records.put(entry.object, entry.row);
        this.uncommitted.splice(i, 1);
      }
    }
  }

  /** Whether a write names a locked record: in its path (the record written) or its body (a lookup to it). */
  private locksOf(req: SimRequest): boolean {
    if (this.lockedRecords.size === 0 || req.method === 'GET') return false;
    const text = `${req.path} ${req.query.get('ids') ?? ''} ${req.body.toString('utf8')}`;
    return [...this.lockedRecords].some((id) => text.includes(id) || text.includes(id.slice(0, 15)));
  }

  /** UNABLE_TO_LOCK_ROW as each call answers it: a SaveResult per record for sObject Collections, an error list otherwise. */
  private lockRefused(req: SimRequest): SimResponse {
    this.lockRefusals += 1;
    const message = 'unable to obtain exclusive access to this record or 1 records';
    if (!req.path.includes('/composite/sobjects')) return errorBody(400, 'UNABLE_TO_LOCK_ROW', message, []);
    const records = (jsonObject(req)?.records as unknown[] | undefined) ?? (req.query.get('ids') ?? '').split(',');
    return { status: 200, body: records.map(() => ({ success: false, errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW', message, fields: [] }] })) };
  }

  /** Every access token issued so far answers INVALID_SESSION_ID from now on (a session timeout). */
  expireTokens(): void {
    this.oauth.expireAccessTokens();
  }

  /**
   * The org's concurrent long-running request limit: 25, and 5 on Developer Edition and trial orgs (Salesforce Developer
   * Limits and Allocations Quick Reference, API Request Limits and Allocations, "Concurrent API Request Limits"). The
   * org's kind is its Organization row: `OrganizationType` ("Developer Edition") and `TrialExpirationDate` (set on a
   * trial) (Object Reference, Organization).
   */
  get longRequestLimit(): number {
    if (this.concurrentLongRequestLimit !== null) return this.concurrentLongRequestLimit;
    const org = this.row('Organization', this.orgId);
    return org?.OrganizationType === 'Developer Edition' || org?.TrialExpirationDate ? 5 : 25;
  }

  /** Makes the org a Developer Edition (or, with `trial`, a trial of its edition). */
  makeDeveloperOrg(kind: 'developer' | 'trial' = 'developer'): void {
    const changes =
      kind === 'developer'
        ? { OrganizationType: 'Developer Edition' }
        : { TrialExpirationDate: SalesforceSim.dateTime(new Date(Date.now() + 30 * 86_400_000)) };
    this.records.update(this.schema.object('Organization')!, this.orgId, changes, { ...this.system(Date.now()), keepStamps: true });
  }

  /** Every data call from now on is long-running and waits until the returned function is called. */
  holdRequests(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.held = null;
      release();
    };
  }

  setApiUsage(used: number, limit = this.apiRequestLimit): void {
    this.apiUsage = used;
    this.apiRequestLimit = limit;
  }

  /** Both hosts answer 503 to everything until `setOutage(false)` (which clears every injected fault). */
  setOutage(down: boolean): void {
    for (const server of [this.login, this.instance]) {
      server.clearFaults();
      if (down)
        server.injectFault({ times: Number.MAX_SAFE_INTEGER, status: 503, body: [{ errorCode: 'SERVER_UNAVAILABLE', message: 'Service Unavailable' }] });
    }
  }

  /** Replaces the schema (e.g. the Lightning names); rows stay where their objects still exist. */
  useSchema(schema: SfSchema): void {
    this.schema = schema;
    const rows = this.records;
    this.records = new SfRecords(schema);
    this.records.restore(rows.snapshot());
    this.records.validationRules.push(...rows.validationRules);
  }

  /** Renames a field (an admin changing its API name): the schema and the values already stored. */
  renameField(object: string, from: string, to: string, changes: Partial<SfField> = {}): void {
    const target = this.mustObject(object);
    const field = this.schema.field(object, from);
    if (!field) throw new Error(`no field ${from} on ${object}`);
    this.schema.changeField(object, from, { ...changes, name: to });
    for (const row of this.records.rows(target))
      this.records.update(target, String(row.Id), { [to]: row[field.name] ?? null }, { ...this.system(Date.now()), keepStamps: true });
    for (const row of this.records.rows(target)) delete row[field.name];
  }

  addValidationRule(rule: SfValidationRule): void {
    this.records.validationRules.push(rule);
  }

  clearValidationRules(): void {
    this.records.validationRules.splice(0);
  }

  /** Inserts a row as an admin would, without the API's checks on system fields; `at` sets its audit times. */
  insertRow(object: string, fields: Record<string, unknown>, at: Date = new Date()): string {
    return this.records.insert(this.mustObject(object), fields, { userId: this.userId, at: at.getTime(), trusted: true });
  }

  /**
   * Changes a row as a user would; SystemModstamp and LastModifiedDate move to `at`. A row whose transaction has not
   * committed yet (commitLate) takes the change into that transaction: it shows when it commits.
   */
  updateRow(object: string, id: string, changes: Record<string, unknown>, at: Date = new Date()): void {
    const target = this.mustObject(object);
    const pending = this.uncommitted.find((entry) => entry.object === target.name && entry.row.Id === to18(id));
    if (pending) {
      const visible = this.records.withhold(target.name, id);
      this.records.put(target.name, pending.row);
      this.records.update(target, id, changes, { userId: this.userId, at: at.getTime(), trusted: true });
      pending.row = this.records.withhold(target.name, id)!;
      if (visible) this.records.put(target.name, visible);
      return;
    }
    this.records.update(target, id, changes, { userId: this.userId, at: at.getTime(), trusted: true });
  }

  /**
   * A person's edit in the org, for tests of the revenue check: the row changed (or deleted, `null`) by another user of
   * the org, made on first use, so its LastModifiedById and SystemModstamp say who and when (REST API Developer
   * Guide, "System Fields": LastModifiedById, SystemModstamp).
   */
  personEdits(object: string, id: string, changes: Record<string, unknown> | null, at: Date = new Date()): string {
    const person = this.person();
    if (changes === null) this.deleteRow(this.mustObject(object), id, person, at.getTime());
    else this.records.update(this.mustObject(object), id, changes, { userId: person, at: at.getTime(), trusted: true });
    return person;
  }

  private personId?: string;

  /** The org's sales manager: a user who is not the one crm-sync connects as. */
  private person(): string {
    this.personId ??= this.records.insert(
      this.schema.object('User')!,
      { FirstName: 'Pat', LastName: 'Manager', Name: 'Pat Manager', Email: 'pat@acme.example', Username: 'pat@acme.example', IsActive: true },
      { userId: this.userId, at: Date.now(), trusted: true },
    );
    return this.personId;
  }

  /** A row as the org holds it now (late commits that are due committed first). */
  row(object: string, id: string): Row | undefined {
    this.commitDue();
    return this.records.get(this.mustObject(object).name, id);
  }

  rows(object: string): Row[] {
    this.commitDue();
    return this.records.rows(this.mustObject(object));
  }

  /** The files linked to a record (through ContentDocumentLink), each with its latest version's bytes. */
  filesOf(recordId: string): SfFile[] {
    return this.files.filesOf(recordId);
  }

  /** Every ContentVersion's bytes, by version id, kept after deletion so tests can count uploads. */
  get uploads(): Map<string, Buffer> {
    return this.files.uploads;
  }

  /** Adds a file to a record as a user would in the UI (a ContentVersion published to it). */
  addFile(recordId: string, pathOnClient: string, bytes: Buffer, title?: string): string {
    return this.files.create({ PathOnClient: pathOnClient, Title: title, FirstPublishLocationId: recordId }, bytes, 'v60.0', Date.now());
  }

  /**
   * Adds a classic Attachment to a record, as an integration writing to its "Notes & Attachments" does (Object
   * Reference, Attachment: ParentId, Name, Body in base64, ContentType); answers its id.
   */
  addAttachment(parentId: string, name: string, bytes: Buffer, at: Date = new Date()): string {
    return this.records.insert(
      this.mustObject('Attachment'),
      { ParentId: parentId, Name: name, Body: bytes.toString('base64'), ContentType: 'application/pdf', BodyLength: bytes.length },
      { userId: this.userId, at: at.getTime(), trusted: true },
    );
  }

  private mustObject(name: string): SfObject {
    const object = this.schema.object(name);
    if (!object) throw new Error(`no object ${name} in the simulated org`);
    return object;
  }

  private system(at: number) {
    return { userId: this.userId ?? '', at, trusted: true };
  }

  // ---- OAuth (login host; token, revoke and userinfo answer on the instance host too, as on a My Domain) ----

  private routeOAuth(): void {
    this.login.route('GET', '/services/oauth2/authorize', (req) => this.oauth.authorize(req));
    this.login.route('POST', '/services/oauth2/authorize/approve', (req) => this.oauth.decision(req, true));
    this.login.route('POST', '/services/oauth2/authorize/deny', (req) => this.oauth.decision(req, false));
    for (const server of [this.login, this.instance]) {
      server.route('POST', '/services/oauth2/token', (req) => this.oauth.token(req));
      server.route('POST', '/services/oauth2/revoke', (req) => this.oauth.revoke(req));
      server.route('GET', '/services/oauth2/revoke', (req) => this.oauth.revoke(req));
      server.route('GET', '/services/oauth2/userinfo', (req) => this.userinfo(req));
    }
    this.login.route('GET', '/id/:orgId/:userId', (req) => this.identity(req));
  }

  private bearer(req: SimRequest): AccessGrant | undefined {
    const match = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
    const token = match?.[1] ?? req.query.get('oauth_token') ?? '';
    const grant = this.oauth.grantOf(token);
    return grant && !grant.expired ? grant : undefined;
  }

  /**
   * The identity URL (`id` of the token answer): the user and org, and the API's URLs with `{version}` left in when no
   * version is asked (Salesforce Help, "Identity URLs": https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_using_openid.htm).
   * A bad token is answered 403 "Bad_OAuth_Token".
   */
  private identity(req: SimRequest): SimResponse {
    const grant = this.bearer(req);
    if (!grant || req.params.orgId !== this.orgId || req.params.userId !== grant.userId)
      return { status: 403, body: 'Bad_OAuth_Token', headers: { 'content-type': 'text/plain' } };
    const user = this.row('User', grant.userId)!;
    const version = req.query.get('version') ?? '{version}';
    const data = `${this.instance.url}/services/data/v${version}`;
    return {
      status: 200,
      body: {
        id: `${this.login.url}/id/${this.orgId}/${grant.userId}`,
        asserted_user: true,
        user_id: grant.userId,
        organization_id: this.orgId,
        username: user.Username,
        nick_name: String(user.Username).split('@')[0],
        display_name: user.Name,
        email: user.Email,
        email_verified: true,
        first_name: user.FirstName,
        last_name: user.LastName,
        active: user.IsActive,
        user_type: 'STANDARD',
        language: 'en_US',
        locale: 'en_US',
        utcOffset: 0,
        last_modified_date: user.LastModifiedDate,
        is_app_installed: true,
        urls: {
          rest: `${data}/`,
          sobjects: `${data}/sobjects/`,
          query: `${data}/query/`,
          search: `${data}/search/`,
          recent: `${data}/recent/`,
          profile: `${this.instance.url}/${grant.userId}`,
          custom_domain: this.instance.url,
        },
      },
    };
  }

  /** OpenID Connect userinfo (Salesforce Help, "UserInfo Endpoint"); the org's id and the user's names and e-mail. */
  private userinfo(req: SimRequest): SimResponse {
    const grant = this.bearer(req);
    if (!grant) return { status: 403, body: 'Bad_OAuth_Token', headers: { 'content-type': 'text/plain' } };
    const user = this.row('User', grant.userId)!;
    return {
      status: 200,
      body: {
        sub: `${this.login.url}/id/${this.orgId}/${grant.userId}`,
        user_id: grant.userId,
        organization_id: this.orgId,
        preferred_username: user.Username,
        nickname: String(user.Username).split('@')[0],
        name: user.Name,
        email: user.Email,
        email_verified: true,
        given_name: user.FirstName,
        family_name: user.LastName,
        zoneinfo: 'America/Los_Angeles',
        active: user.IsActive,
        user_type: 'STANDARD',
        language: 'en_US',
        locale: 'en_US',
        urls: { rest: `${this.instance.url}/services/data/v{version}/`, custom_domain: this.instance.url },
      },
    };
  }

  // ---- the REST API (instance host) ----

  /** Registers a route under /services/data/vXX.X with and without a trailing slash. */
  private data(method: string, path: string, handler: SimHandler): void {
    const wrapped = this.authed(handler);
    this.instance.route(method, `/services/data/:version${path}`, wrapped);
    if (path) this.instance.route(method, `/services/data/:version${path}/`, wrapped);
  }

  /**
   * Every data call: a known version, a live token with the `api` scope, API access for the org, and the daily allocation
   * (REST API Developer Guide, Limit Info Header: https://developer.salesforce.com/docs/platform/api-rest/guide/headers-api-usage.html,
   * every answer carries `Sforce-Limit-Info: api-usage=N/M`; past M, 403 REQUEST_LIMIT_EXCEEDED).
   */
  private authed(handler: SimHandler): SimHandler {
    return async (req) => {
      if (!isVersion(req.params.version)) return notFound();
      this.commitDue();
      const grant = this.bearer(req);
      if (!grant) return errorBody(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
      if (this.sessionRefusal) return errorBody(401, 'INVALID_SESSION_ID', this.sessionRefusal);
      // A token whose consent lacks the `api` scope cannot call the REST API (Salesforce Help, knowledge article 005226515).
      if (!grant.scopes.includes('api') && !grant.scopes.includes('full'))
        return errorBody(401, 'INVALID_SESSION_ID', 'This session is not valid for use with the REST API');
      if (!this.apiEnabled) return this.withLimitInfo(errorBody(403, 'API_DISABLED_FOR_ORG', 'API is not enabled for this Organization or Partner'));
      if (this.apiUsage >= this.apiRequestLimit) return this.withLimitInfo(errorBody(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.'));
      this.apiUsage += 1;
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      try {
        if (this.locksOf(req)) return this.withLimitInfo(this.lockRefused(req));
        if (this.longRequestMs > 0 || this.held) {
          if (this.inFlight > this.longRequestLimit)
            return this.withLimitInfo(errorBody(403, 'REQUEST_LIMIT_EXCEEDED', 'ConcurrentPerOrgLongTxn Limit exceeded.'));
          await Promise.all([new Promise((resolve) => setTimeout(resolve, this.longRequestMs)), this.held]);
        }
        return this.withLimitInfo(await handler(req));
      } catch (err) {
        if (err instanceof SfWriteError) return this.withLimitInfo({ status: 400, body: err.errors });
        if (err instanceof SoqlError) return this.withLimitInfo(errorBody(400, err.errorCode, err.message));
        throw err;
      } finally {
        this.inFlight -= 1;
      }
    };
  }

  private withLimitInfo(response: SimResponse): SimResponse {
    return { ...response, headers: { ...(response.headers ?? {}), 'sforce-limit-info': `api-usage=${this.apiUsage}/${this.apiRequestLimit}` } };
  }

  private routeData(): void {
    // Versions: no authentication, and not counted against the allocation.
    const versions: SimHandler = () => ({ status: 200, body: VERSIONS });
    this.instance.route('GET', '/services/data', versions);
    this.instance.route('GET', '/services/data/', versions);
    this.data('GET', '', (req) => ({ status: 200, body: this.resources(req.params.version) }));
    this.data('GET', '/limits', () => ({
      status: 200,
      // Limits resource: https://developer.salesforce.com/docs/platform/api-rest/guide/resources-limits.html
      body: { DailyApiRequests: { Max: this.apiRequestLimit, Remaining: Math.max(0, this.apiRequestLimit - this.apiUsage) } },
    }));
    this.data('GET', '/query', (req) => this.query(req));
    this.data('GET', '/queryAll', (req) => this.query(req, true));
    this.data('GET', '/query/:locator', (req) => this.cursors.next(req.params.version, req.params.locator));
    this.data('GET', '/sobjects', (req) => this.describeGlobal(req.params.version));
    this.data('GET', '/sobjects/:object/describe', (req) => this.describe(req));
    this.data('GET', '/sobjects/:object', (req) => this.basicInfo(req));
    this.data('POST', '/sobjects/:object', (req) => this.create(req));
    this.data('GET', '/sobjects/:object/:id', (req) => this.read(req));
    this.data('PATCH', '/sobjects/:object/:id', (req) => this.update(req));
    this.data('DELETE', '/sobjects/:object/:id', (req) => this.remove(req));
    this.data('GET', '/sobjects/:object/:id/:blob', (req) => this.blob(req));
    this.data('POST', '/composite/sobjects', (req) => this.collections.create(req));
    this.data('PATCH', '/composite/sobjects', (req) => this.collections.update(req));
    this.data('DELETE', '/composite/sobjects', (req) => this.collections.delete(req));
  }

  private resources(version: string): Record<string, string> {
    const base = `/services/data/${version}`;
    return { sobjects: `${base}/sobjects`, query: `${base}/query`, queryAll: `${base}/queryAll`, limits: `${base}/limits`, composite: `${base}/composite` };
  }

  private attributes(version: string) {
    return (object: SfObject, id: string) => ({ type: object.name, url: `/services/data/${version}/sobjects/${object.name}/${id}` });
  }

  /**
   * Query (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-query.html), its batches kept by
   * query-cursors.ts. The batch is 2,000 by default; `Sforce-Query-Options: batchSize=N` asks 200 to 2,000 (Query
   * Options Header: https://developer.salesforce.com/docs/platform/api-rest/guide/headers-queryoptions.html).
   *
   * QueryAll (`all`: https://developer.salesforce.com/docs/platform/api-rest/guide/resources-queryall.html) runs the
   * same query over the records in the Recycle Bin too (IsDeleted true), and only those: "Unlike the Query resource,
   * QueryAll returns records that are soft deleted due to a merge or delete. After these records are permanently
   * removed from the recycle bin, you can no longer query them." Query leaves them out, `WHERE IsDeleted = true`
   * included ("the Query resource will automatically filter out items that have been deleted": "Execute a SOQL Query
   * that Includes Deleted Items", https://developer.salesforce.com/docs/platform/api-rest/guide/dome-queryall.html).
   * Its further batches are read through `nextRecordsUrl` under `/query/` like Query's ("Although the nextRecordsUrl
   * has query in the URL, it still provides the remaining results from the initial QueryAll request").
   */
  private query(req: SimRequest, all = false): SimResponse {
    const q = req.query.get('q');
    if (!q) return errorBody(400, 'MALFORMED_QUERY', 'A query string has to be specified');
    const parsed = parseSoql(q);
    const records = this.records;
    const data: SoqlData = all
      ? { schema: records.schema, rows: (o) => [...records.rows(o), ...records.recycled(o)], byId: (id) => records.byIdWithRecycled(id) }
      : records;
    const result = runSoql(data, parsed);
    const rows = parsed.count ? [] : result.rows.map((row) => recordOf(data, result, row, this.attributes(req.params.version)));
    const asked = /batchSize\s*=\s*(\d+)/i.exec(String(req.headers['sforce-query-options'] ?? ''));
    const batchSize = Math.min(Math.max(asked ? Number(asked[1]) : DEFAULT_BATCH_SIZE, MIN_BATCH_SIZE), DEFAULT_BATCH_SIZE, this.batchSizeCap);
    return this.cursors.first(req.params.version, rows, parsed.count ? result.rows.length : rows.length, batchSize);
  }

  /** Describe Global (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-describe-global.html). */
  private describeGlobal(version: string): SimResponse {
    return {
      status: 200,
      body: {
        encoding: 'UTF-8',
        maxBatchSize: 200,
        sobjects: this.schema.all().map((o) => ({
          name: o.name,
          label: o.label,
          labelPlural: o.labelPlural,
          keyPrefix: o.keyPrefix,
          custom: o.custom,
          queryable: o.queryable,
          createable: o.createable,
          updateable: o.updateable,
          deletable: o.deletable,
          urls: this.objectUrls(version, o),
        })),
      },
    };
  }

  private objectUrls(version: string, o: SfObject): Record<string, string> {
    const base = `/services/data/${version}/sobjects/${o.name}`;
    return { sobject: base, describe: `${base}/describe`, rowTemplate: `${base}/{ID}` };
  }

  /** sObject Describe (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-sobject-describe.html). */
  private describe(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    if (!object) return notFound();
    const { fields, ...rest } = object;
    return {
      status: 200,
      body: {
        ...rest,
        urls: this.objectUrls(req.params.version, object),
        fields: fields.map((f) => ({
          name: f.name,
          label: f.label,
          type: f.type,
          length: f.length ?? 0,
          referenceTo: f.referenceTo?.filter((t) => t !== '*') ?? [],
          relationshipName: f.relationshipName ?? null,
          // Every value of a pick list, inactive ones too, with `active` saying which (REST API Developer Guide, sObject
          // Describe, resources_sobject_describe.htm; the PicklistEntry shape of the SOAP API's describeSObjects).
          picklistValues: (f.picklistValues ?? []).map((v) => ({
            value: v.value,
            label: v.label,
            active: v.active,
            defaultValue: v.defaultValue ?? false,
            validFor: null,
          })),
          restrictedPicklist: f.restrictedPicklist ?? false,
          nillable: f.nillable,
          createable: f.createable,
          updateable: f.updateable,
          defaultedOnCreate: f.defaultedOnCreate,
          nameField: f.nameField ?? false,
          autoNumber: f.autoNumber ?? false,
          calculated: f.calculated !== undefined,
          custom: f.name.endsWith('__c'),
          filterable: !(f.type === 'textarea' && (f.length ?? 0) > 255),
          polymorphicForeignKey: (f.referenceTo ?? []).includes('*'),
        })),
      },
    };
  }

  /** sObject Basic Information (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-sobject-basic-info.html). */
  private basicInfo(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    if (!object) return notFound();
    const { fields: _fields, ...objectDescribe } = object;
    return { status: 200, body: { objectDescribe: { ...objectDescribe, urls: this.objectUrls(req.params.version, object) }, recentItems: [] } };
  }

  /** sObject Rows, GET (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-sobject-rows.html): `?fields=` picks. */
  private read(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    const row = object && this.records.get(object.name, req.params.id);
    if (!object || !row) return this.missing(req.params.id);
    const asked = req.query.get('fields');
    const names = asked ? asked.split(',').map((n) => n.trim()) : object.fields.map((f) => f.name);
    const body: Record<string, unknown> = { attributes: this.attributes(req.params.version)(object, String(row.Id)) };
    for (const name of names) {
      const f = this.schema.field(object.name, name);
      if (!f) return errorBody(400, 'INVALID_FIELD', `No such column '${name}' on sobject of type ${object.name}`);
      body[f.name] = f.calculated
        ? (calculatedValue(this.records, row, f) ?? null)
        : f.type === 'base64' && row[f.name]
          ? `/services/data/${req.params.version}/sobjects/${object.name}/${String(row.Id)}/${f.name}`
          : (row[f.name] ?? null);
    }
    return { status: 200, body };
  }

  /** A row not there: ENTITY_IS_DELETED if it was deleted (it sits in the Recycle Bin), NOT_FOUND otherwise. */
  private missing(id: string): SimResponse {
    return this.records.isDeleted(id) ? entityIsDeleted() : notFound();
  }

  /** sObject Rows, PATCH: 204 with no body; field errors as `[{message, errorCode, fields}]` with 400. */
  private update(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    if (!object || !this.records.get(object.name, req.params.id)) return this.missing(req.params.id);
    const values = jsonObject(req);
    if (!values) return errorBody(400, 'JSON_PARSER_ERROR', 'The request body is not a JSON object');
    this.records.update(object, req.params.id, values, { userId: this.userId, at: Date.now() });
    return { status: 204 };
  }

  /** sObject Rows, DELETE: 204. Deleting a ContentDocument deletes its versions and links (Object Reference, ContentDocument). */
  private remove(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    if (!object || !this.records.get(object.name, req.params.id)) return this.missing(req.params.id);
    if (!object.deletable) return errorBody(400, 'INSUFFICIENT_ACCESS_OR_READONLY', `insufficient access rights on object id`);
    this.deleteRow(object, req.params.id);
    return { status: 204 };
  }

  private deleteRow(object: SfObject, id: string, userId = this.userId, at = Date.now()): void {
    if (object.name === 'ContentDocument') this.files.deleteDocument(id, userId, at);
    else this.records.delete(object, id, { userId, at });
  }

  /** Empties the org's Recycle Bin (an admin's "Empty the Recycle Bin", or 15 days gone by): QueryAll no longer reads what was in it. */
  emptyRecycleBin(): void {
    this.records.emptyRecycleBin();
  }

  /** A blob field's bytes: `sobjects/ContentVersion/{id}/VersionData` (Get Blob Data page). */
  private blob(req: SimRequest): SimResponse {
    const object = this.schema.object(req.params.object);
    const row = object && this.records.get(object.name, req.params.id);
    const bytes = row && object.name === 'ContentVersion' && req.params.blob === 'VersionData' ? this.files.bytesOf(String(row.Id)) : undefined;
    if (!bytes) return notFound();
    return { status: 200, raw: bytes, headers: { 'content-type': 'application/octet-stream' } };
  }

  /**
   * sObject Basic Information, POST: 201 `{id, success: true, errors: []}`. ContentVersion also takes a multipart body:
   * an `entity_content` JSON part and a `VersionData` binary part (Insert or Update Blob Data:
   * https://developer.salesforce.com/docs/platform/api-rest/guide/dome-sobject-insert-update-blob.html), or JSON with
   * `VersionData` in base64.
   */
  private async create(req: SimRequest): Promise<SimResponse> {
    const object = this.schema.object(req.params.object);
    if (!object) return notFound();
    if (!object.createable) return errorBody(400, 'INVALID_TYPE', `Cannot create ${object.name}`);
    let id: string;
    if (object.name === 'ContentVersion') {
      const upload = await contentVersionUpload(req);
      if ('status' in upload) return upload;
      id = this.files.create(upload.values, upload.bytes, req.params.version, Date.now());
    } else {
      const values = jsonObject(req);
      if (!values) return errorBody(400, 'JSON_PARSER_ERROR', 'The request body is not a JSON object');
      id = this.records.insert(object, values, { userId: this.userId, at: Date.now() });
    }
    return {
      status: 201,
      body: { id, success: true, errors: [] },
      headers: { location: `/services/data/${req.params.version}/sobjects/${object.name}/${id}` },
    };
  }

  /** Whether a field is required on create, as describe reports it (for tests that check the adapter reads it). */
  isRequired(object: string, field: string): boolean {
    const f = this.schema.field(object, field);
    return !!f && isRequired(f);
  }

  /** The time Salesforce would write for `at`. */
  static dateTime(at: Date): string {
    return sfDateTime(at.getTime());
  }
}
