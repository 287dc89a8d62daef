import { DEFAULT_SALESFORCE_API_VERSION, type RetryPolicy } from '../../../config/app-config.js';
import type { MetricsService } from '../../../observability/metrics.service.js';
import { excerptOf, OutboundError } from '../../../http/outbound-error.js';
import { OutboundHttp, type OutboundRequest, type OutboundResponse } from '../../../http/outbound-http.js';
import { withRetries } from '../../../http/retry.js';
import type { SharedRedisService } from '../../../queues/shared-redis.service.js';
import { LocalGate, OrgRequestSlots } from './org-request-slots.js';
import { apiScopeProblem, salesforceHostProblem, withoutTrailingSlash } from './salesforce-hosts.js';

/**
 * Salesforce allows an org 25 long-running requests (20 s or more) at once, and a Developer Edition or trial org 5
 * (Salesforce Developer Limits and Allocations Quick Reference, API Request Limits and Allocations, "Concurrent API
 * Request Limits"). A request's length is not known before it is sent, so every replica together sends no more than
 * that many requests of any length to the org at once.
 */
export const MAX_CONCURRENT_REQUESTS = 25;
export const MAX_CONCURRENT_REQUESTS_SMALL_ORG = 5;
const ORG_KIND_RETRY_MS = 60_000;

/**
 * 401 answers that a new token cannot cure: jsforce (src/http-api.ts, `isSessionExpired`) does not refresh on these,
 * since an org's Connected App, OAuth or IP policy blocks the connection itself and refreshing would only loop.
 */
const NOT_A_SESSION_END = [
  'This session is not valid for use with the REST API',
  'BlackTab users cannot perform API operations',
  'Connected app is not attached to Agent',
];

export interface SalesforceCredentials {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

export interface SalesforceToken {
  accessToken: string;
  instanceUrl: string;
  /** The identity URL (`id`), whose last two segments are the org and the user. */
  identityUrl: string | null;
}

/** What a refresh leaves for every replica: the access token it took and the refresh token to present next. */
export interface SalesforceSession extends SalesforceToken {
  refreshToken: string;
}

/**
 * Where the replicas keep a connection's session, so that one refresh serves them all and, under refresh-token
 * rotation, each refresh presents the refresh token the last one was given.
 */
export interface SalesforceSessionKeeper {
  /** The session kept now, or null. */
  read(): Promise<SalesforceSession | null>;
  /** Runs `renew` with the session kept now, alone across replicas; keeps what it returns before the next may run. */
  exclusive(renew: (kept: SalesforceSession | null) => Promise<SalesforceSession>): Promise<SalesforceSession>;
}

/** The org's daily API allocation as the last answer's `Sforce-Limit-Info` said it. */
export interface ApiUsage {
  used: number;
  max: number;
  seenAt: Date;
}

export interface SalesforceApiOptions {
  timeoutMs: number;
  uploadTimeoutMs: number;
  maxJsonBytes?: number;
  retry: RetryPolicy;
  allowCustomDomains: boolean;
  metrics?: MetricsService;
  now?: () => number;
  /** `68.0`: the version in every data path. */
  apiVersion?: string;
  /** Shares the session across replicas; without it this process refreshes on its own and keeps a rotated token in memory. */
  sessions?: SalesforceSessionKeeper;
  /** Caps requests to the org across replicas; without it the cap holds per process. */
  shared?: SharedRedisService;
}

/**
 * Whether an Organization row is a Developer Edition or trial org, whose concurrent long-running request limit is 5:
 * `OrganizationType` ("Developer Edition"; a sandbox's is its production's) and `TrialExpirationDate` (set on a trial)
 * (Object Reference for the Salesforce Platform, Organization).
 */
export function isSmallOrg(org: Record<string, unknown> | undefined): boolean {
  if (!org) return false;
  return (
    (org.OrganizationType === 'Developer Edition' && org.IsSandbox !== true) || (org.TrialExpirationDate !== null && org.TrialExpirationDate !== undefined)
  );
}

/** A Salesforce error body: `[{ "message", "errorCode", "fields" }]` (REST API Developer Guide, "Status Codes and Error Responses"). */
export function errorCodeOf(data: unknown): string | null {
  const first = Array.isArray(data) ? data[0] : data;
  if (first && typeof first === 'object' && typeof (first as { errorCode?: unknown }).errorCode === 'string') return (first as { errorCode: string }).errorCode;
  if (first && typeof first === 'object' && typeof (first as { error?: unknown }).error === 'string') return (first as { error: string }).error;
  return null;
}

/** `api-usage=25/15000` of `Sforce-Limit-Info` (REST API Developer Guide, "Limit Info Header", headers_api_usage.htm). */
export function parseLimitInfo(header: unknown): { used: number; max: number } | null {
  // `per-app-api-usage=17/250(appName=…)` may follow (or stand alone): it is the app's share, not the org's.
  const match = typeof header === 'string' ? /(?:^|[;,\s])api-usage=(\d+)\/(\d+)/.exec(header) : null;
  return match ? { used: Number(match[1]), max: Number(match[2]) } : null;
}

/**
 * One org's REST API with the refresh-token grant: the access token and the instance it names are obtained on the
 * first call and again when Salesforce answers `INVALID_SESSION_ID` (sessions end after the org's timeout, and
 * tokens carry no expiry), by one caller at a time, and across replicas through the session keeper: a replica reads
 * the session another one took, and refreshes only when the one kept is the one Salesforce refused. A refresh answer
 * that carries a `refresh_token` (rotation on) replaces the one presented, which Salesforce has just invalidated.
 * Retries transient failures itself, like the other clients: 429, 503 and other 5xx, time-outs, `REQUEST_LIMIT_EXCEEDED`
 * (a 403 when the org's allocation is spent) and `UNABLE_TO_LOCK_ROW`. Every answer's `Sforce-Limit-Info` is kept as
 * the org's usage.
 */
export class SalesforceApi {
  private readonly http: OutboundHttp;
  private readonly auth: OutboundHttp;
  private token: SalesforceToken | null = null;
  /** The refresh token to present next, when no keeper keeps it. */
  private refreshToken: string;
  /** The access token Salesforce last refused here: a kept session with it is no session. */
  private refused: string | null = null;
  private refreshing: Promise<SalesforceToken> | null = null;
  /** The org's cap on requests at once: 25 until its Organization row says it is a Developer or trial org. */
  private concurrentLimit = MAX_CONCURRENT_REQUESTS;
  private orgKnown: Promise<void> | null = null;
  private readonly slots: { run<T>(call: () => Promise<T>): Promise<T> };
  readonly dataPath: string;
  usage: ApiUsage | null = null;

  constructor(
    readonly credentials: SalesforceCredentials,
    private readonly options: SalesforceApiOptions,
  ) {
    const common = { timeoutMs: options.timeoutMs, maxJsonBytes: options.maxJsonBytes, metrics: options.metrics };
    this.http = new OutboundHttp({
      ...common,
      system: 'appointment_crm',
      uploadTimeoutMs: options.uploadTimeoutMs,
      retry: { ...options.retry, attempts: 1 },
      throttle: (call) => this.slots.run(call),
    });
    this.auth = new OutboundHttp({ ...common, system: 'salesforce_login', retry: { ...options.retry, attempts: 1 } });
    this.refreshToken = credentials.refreshToken;
    const limit = () => this.concurrentLimit;
    this.slots = options.shared
      ? new OrgRequestSlots(options.shared, () => this.orgKey(), limit, Math.max(options.timeoutMs, options.uploadTimeoutMs) + 5_000)
      : new LocalGate(limit);
    this.dataPath = `/services/data/v${options.apiVersion ?? DEFAULT_SALESFORCE_API_VERSION}`;
  }

  /** How calls are retried; a caller that sends a write once and retries a larger step uses it too. */
  get retryPolicy(): RetryPolicy {
    return this.options.retry;
  }

  /** The token in use, obtained when there is none. */
  session(): Promise<SalesforceToken> {
    if (this.token) return Promise.resolve(this.token);
    this.refreshing ??= this.obtain().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** The refresh token to present next (the kept one under rotation), for a caller that revokes it. */
  async currentRefreshToken(): Promise<string> {
    return (await this.options.sessions?.read().catch(() => null))?.refreshToken ?? this.refreshToken;
  }

  /**
   * A call under the org's instance (a path under `/services/data/vXX.X`, or an absolute `/services/...` path such
   * as a `nextRecordsUrl`), retried when transient. A call with a one-shot body is sent once: its caller retries.
   */
  async request<T>(req: OutboundRequest): Promise<OutboundResponse<T>> {
    const policy = req.body === undefined && req.retry !== false ? this.options.retry : { ...this.options.retry, attempts: 1 };
    // A session that ended is cured by one new token; a new token refused as well is a connection Salesforce refuses.
    let refusedBefore = false;
    return withRetries(async () => {
      try {
        return await this.once<T>(req, refusedBefore);
      } catch (err) {
        if (err instanceof OutboundError && err.status === 401 && err.failure === 'unavailable') refusedBefore = true;
        throw err;
      }
    }, policy);
  }

  /** The org's key for the shared request cap: its id from the identity URL, else its instance. */
  private orgKey(): string {
    const orgId = this.token?.identityUrl?.split('/').slice(-2)[0];
    return orgId && /^[A-Za-z0-9]{15,18}$/.test(orgId) ? orgId : (this.token?.instanceUrl ?? this.credentials.loginUrl).replace(/[^A-Za-z0-9.]/g, '_');
  }

  /** Reads the org's kind once (its request cap); a failed read leaves 25 and is tried again a minute later. */
  private knowOrg(): Promise<void> {
    this.orgKnown ??= this.query<Record<string, unknown>>('SOQL organization kind', 'SELECT OrganizationType, IsSandbox, TrialExpirationDate FROM Organization')
      .then(([org]) => {
        this.concurrentLimit = isSmallOrg(org) ? MAX_CONCURRENT_REQUESTS_SMALL_ORG : MAX_CONCURRENT_REQUESTS;
      })
      .catch(() => {
        // 25 meanwhile; read again later, not on every call (a user who may not read Organization would double them).
        setTimeout(() => (this.orgKnown = null), ORG_KIND_RETRY_MS).unref();
      });
    return this.orgKnown;
  }

  private async once<T>(req: OutboundRequest, refusedBefore = false): Promise<OutboundResponse<T>> {
    const session = await this.session();
    if (req.endpoint !== 'SOQL organization kind') await this.knowOrg();
    const path = req.path.startsWith('/services/') ? req.path : `${this.dataPath}${req.path}`;
    const response = await this.http.request<T>({
      ...req,
      path: `${session.instanceUrl}${path}`,
      pathTemplate: req.pathTemplate ?? req.endpoint.replace(/^\S+\s+/, ''),
      headers: { ...(req.headers ?? {}), authorization: `Bearer ${session.accessToken}` },
      acceptStatus: [...(req.acceptStatus ?? []), 400, 401, 403],
      retry: false,
      // Read even where the caller does not use it: a 401 or 403 is told apart by its errorCode. Salesforce answers
      // JSON or nothing.
      answerUnused: false,
    });
    const limit = parseLimitInfo(response.headers['sforce-limit-info']);
    if (limit) this.usage = { ...limit, seenAt: new Date(this.options.now?.() ?? Date.now()) };
    if (response.status === 400 && !req.acceptStatus?.includes(400)) {
      const code = errorCodeOf(response.data);
      // A record another transaction holds (a trigger, a flow, a user's save): Salesforce waited up to 10 s for it and
      // advises retrying ("Record-Level Locking"); nothing was written, so the write is retried with backoff.
      if (code === LOCKED) throw lockedError(req.endpoint, 400);
      throw new OutboundError('appointment_crm', req.endpoint, 'rejected', 400, excerptOf(response.data));
    }
    if ((response.status === 401 || response.status === 403) && !req.acceptStatus?.includes(response.status)) {
      const code = errorCodeOf(response.data);
      if (response.status === 401) {
        const message = messageOf(response.data);
        if (refusedBefore || NOT_A_SESSION_END.some((m) => message.includes(m)))
          throw new OutboundError(
            'appointment_crm',
            req.endpoint,
            'unauthorized',
            401,
            `${code ?? 'HTTP 401'}: ${message || 'refused'}; a new token does not help: unauthorized, connect again`,
          );
        // The session ended: a new token, and the call again (by this caller's retry, which an upload's caller does).
        this.forget(session);
        throw new OutboundError('appointment_crm', req.endpoint, 'unavailable', 401, `${code ?? 'HTTP 401'}: session ended; a new token is taken`);
      }
      // Transient like a 429: retried with the usual backoff (the queue's reaches 15 minutes between tries).
      if (code === 'REQUEST_LIMIT_EXCEEDED')
        throw new OutboundError('appointment_crm', req.endpoint, 'rate_limited', 403, 'REQUEST_LIMIT_EXCEEDED: the org has used its API requests');
      throw new OutboundError('appointment_crm', req.endpoint, 'unauthorized', 403, `${code ?? 'HTTP 403'}: ${messageOf(response.data)}`);
    }
    return response;
  }

  /** Drops a token Salesforce called invalid, unless another caller replaced it already. */
  private forget(session: SalesforceToken): void {
    this.refused = session.accessToken;
    if (this.token === session) this.token = null;
  }

  /**
   * A session: the one kept for every replica unless it is the one refused here; else a refresh, alone across
   * replicas, which first looks again at what is kept (another replica may have refreshed meanwhile).
   */
  private async obtain(): Promise<SalesforceToken> {
    const keeper = this.options.sessions;
    if (!keeper) {
      const session = await this.refresh(this.refreshToken);
      this.refreshToken = session.refreshToken;
      return this.adopt(session);
    }
    const usable = (kept: SalesforceSession | null): boolean => kept !== null && kept.accessToken !== this.refused;
    const kept = await keeper.read();
    if (kept && usable(kept)) return this.adopt(kept);
    return this.adopt(await keeper.exclusive(async (now) => (now && usable(now) ? now : this.refresh(now?.refreshToken ?? this.credentials.refreshToken))));
  }

  private adopt(session: SalesforceSession): SalesforceToken {
    // Kept sessions were checked when they were taken; the rule may have tightened since (custom domains turned off).
    this.mustTrustInstance(session.instanceUrl, 'the kept session');
    this.token = { accessToken: session.accessToken, instanceUrl: session.instanceUrl, identityUrl: session.identityUrl };
    return this.token;
  }

  private mustTrustInstance(instanceUrl: string, whose: string): void {
    const problem = salesforceHostProblem('instance_url', instanceUrl, this.options.allowCustomDomains);
    if (problem)
      throw new OutboundError(
        'appointment_crm',
        'POST /services/oauth2/token',
        'rejected',
        null,
        `${whose} names an instance crm-sync does not trust: ${problem}`,
      );
  }

  /**
   * The refresh-token grant (POST /services/oauth2/token, grant_type=refresh_token, Salesforce Help, "OAuth 2.0
   * Refresh Token Flow for Renewed Sessions", remoteaccess_oauth_refresh_token_flow.htm); refused hosts and tokens fail
   * the call. Under rotation the answer carries the refresh token to present next, the one presented being invalid now.
   */
  private async refresh(refreshToken: string): Promise<SalesforceSession> {
    const { loginUrl, clientId, clientSecret } = this.credentials;
    const body = new URLSearchParams({ grant_type: 'refresh_token', client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken }).toString();
    const answer = await withRetries(async () => {
      const response = await this.auth.request<Record<string, unknown> | null>({
        endpoint: 'POST /services/oauth2/token',
        method: 'POST',
        path: `${withoutTrailingSlash(loginUrl)}/services/oauth2/token`,
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        acceptStatus: [400, 401],
      });
      return response.data ?? {};
    }, this.options.retry);
    if (typeof answer.access_token !== 'string' || typeof answer.instance_url !== 'string') {
      const reason =
        typeof answer.error === 'string'
          ? `${answer.error}${typeof answer.error_description === 'string' ? `: ${answer.error_description}` : ''}`
          : 'no access token';
      throw new OutboundError(
        'appointment_crm',
        'POST /services/oauth2/token',
        'unauthorized',
        400,
        `Salesforce refused the refresh token (${reason.slice(0, 160)}); connect again`,
      );
    }
    // A token without the api scope is refused by every data call with INVALID_SESSION_ID: refreshing again cannot help.
    const noApi = apiScopeProblem(answer.scope);
    if (noApi) throw new OutboundError('appointment_crm', 'POST /services/oauth2/token', 'unauthorized', 400, `${noApi}; connect again`);
    const instanceUrl = withoutTrailingSlash(answer.instance_url);
    this.mustTrustInstance(instanceUrl, 'the token answer');
    return {
      accessToken: answer.access_token,
      instanceUrl,
      identityUrl: typeof answer.id === 'string' ? answer.id : null,
      refreshToken: typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? answer.refresh_token : refreshToken,
    };
  }

  /** Every record of a SOQL query, following `nextRecordsUrl` (REST API Developer Guide, "Query", resources_query.htm). */
  query<R = Record<string, unknown>>(endpoint: string, soql: string): Promise<R[]> {
    return this.pages<R>(endpoint, soql, '/query');
  }

  /**
   * A SOQL query over the records in the Recycle Bin as well, each with `IsDeleted` (REST API Developer Guide,
   * "QueryAll", resources_queryall.htm: "Unlike the Query resource, QueryAll returns records that are soft deleted due
   * to a merge or delete"; once removed from the Recycle Bin, 15 days on, no longer): its further batches are read
   * through `nextRecordsUrl` like Query's.
   */
  queryAll<R = Record<string, unknown>>(endpoint: string, soql: string): Promise<R[]> {
    return this.pages<R>(endpoint, soql, '/queryAll');
  }

  private async pages<R>(endpoint: string, soql: string, resource: '/query' | '/queryAll'): Promise<R[]> {
    const records: R[] = [];
    let answer = (await this.request<QueryAnswer<R>>({ endpoint, method: 'GET', path: resource, params: { q: soql }, pathTemplate: resource })).data;
    for (;;) {
      if (!answer || !Array.isArray(answer.records))
        throw new OutboundError('appointment_crm', endpoint, 'invalid_response', 200, 'a query answer without records');
      records.push(...answer.records);
      if (answer.done !== false || typeof answer.nextRecordsUrl !== 'string') return records;
      if (!answer.nextRecordsUrl.startsWith('/services/data/'))
        throw new OutboundError('appointment_crm', endpoint, 'invalid_response', 200, 'nextRecordsUrl is not a path of the API');
      answer = (await this.request<QueryAnswer<R>>({ endpoint, method: 'GET', path: answer.nextRecordsUrl, pathTemplate: '/query/:locator' })).data;
    }
  }
}

interface QueryAnswer<R> {
  done?: boolean;
  totalSize?: number;
  nextRecordsUrl?: string;
  records: R[];
}

/** UNABLE_TO_LOCK_ROW: a record the write needs is locked by another transaction (SOAP API StatusCode; REST errorCode). */
export const LOCKED = 'UNABLE_TO_LOCK_ROW';

/** A lock refusal as a transient failure: retried with the usual backoff, in the client and then on the queue. */
export function lockedError(endpoint: string, status: number): OutboundError {
  return new OutboundError('appointment_crm', endpoint, 'unavailable', status, `${LOCKED}: a record is locked by another transaction; tried again`);
}

function messageOf(data: unknown): string {
  const first = Array.isArray(data) ? data[0] : data;
  const message = first && typeof first === 'object' ? (first as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message.slice(0, 200) : '';
}
