import { Logger } from '@nestjs/common';
import type { RetryPolicy } from '../../config/app-config.js';
import { OutboundError } from '../../http/outbound-error.js';
import type { OutboundHttp } from '../../http/outbound-http.js';
import { withRetries } from '../../http/retry.js';
import { withoutTrailingSlashes, ZOHO_ONLY, zohoDomainProblem, type ZohoDomainRule } from '../../config/zoho-domains.js';
import { parseGrantedScopes } from './zoho-scopes.js';
import { MemoryTokenStore, type TokenRefusal, type TokenStore, type ZohoToken } from './token-store.js';

export type { ZohoToken } from './token-store.js';

export interface ZohoCredentials {
  accountsUrl: string;
  apiDomain: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

const ENDPOINT = 'POST /oauth/v2/token';
/** A refused refresh token stays refused until someone re-authorises (a new connection has a store of its own). */
const REFUSED_FOR_MS = 10 * 60_000;
/** Zoho grants 10 tokens per refresh token per 10 minutes; once throttled, wait a minute before asking again. */
const THROTTLED_FOR_MS = 60_000;
/** How long one holder of the store's lock may take to refresh before another may; the others wait that long at most. */
const REFRESH_LOCK_MS = 30_000;
const POLL_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Access tokens of Zoho's refresh-token grant. One token is shared by every job of the process and, through the
 * store, by every replica; it is renewed shortly before it expires or when Zoho calls it invalid, by one caller at a
 * time (the process's callers share one refresh; the replicas take the store's lock, and the others wait for the
 * token it saves). A refusal is remembered for a while, in the store too, so a bad refresh token fails jobs at once
 * instead of asking the accounts server (and using up its quota) on every job. Without the store (Redis away), each
 * process refreshes on its own.
 */
export class ZohoAuth {
  private readonly logger = new Logger(ZohoAuth.name);
  private token: ZohoToken | null = null;
  private refreshing: Promise<ZohoToken> | null = null;
  private refusal: { error: OutboundError; until: number } | null = null;
  private storeDown = false;

  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: ZohoCredentials,
    private readonly retry: RetryPolicy,
    private readonly now: () => number = Date.now,
    /** Told when Zoho refuses the refresh token (an alert); must return at once and never throw. */
    private readonly onRefused?: (reason: string) => void,
    private readonly store: TokenStore = new MemoryTokenStore(now),
    /** Which API domains a token answer may name besides the configured one. */
    private readonly domains: ZohoDomainRule = ZOHO_ONLY,
  ) {}

  /** A valid token, refreshed when needed; throws an OutboundError when none can be obtained. */
  get(): Promise<ZohoToken> {
    if (this.token && this.now() < this.token.renewAt) return Promise.resolve(this.token);
    this.refreshing ??= this.obtain().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Zoho called this token invalid: drop it, here and in the store, unless another caller has replaced it already. */
  async invalidate(accessToken: string): Promise<void> {
    if (this.token?.accessToken === accessToken) this.token = null;
    await this.shared(() => this.store.drop(accessToken));
  }

  /** The store's token or refusal; else a refresh under the store's lock, or, while another holds it, its result. */
  private async obtain(): Promise<ZohoToken> {
    if (this.refusal && this.now() < this.refusal.until) throw this.refusal.error;
    this.refusal = null;
    let release: (() => Promise<void>) | null = null;
    try {
      for (let polls = 0; polls * POLL_MS < REFRESH_LOCK_MS;) {
        const state = await this.shared(() => this.store.read());
        if (!state) break;
        if (state.refusal) throw this.remember(state.refusal);
        if (state.token && this.now() < state.token.renewAt && this.usable(state.token)) return (this.token = state.token);
        // Read under the lock: nobody else is refreshing, and nobody did meanwhile.
        if (release) break;
        const taken = await this.shared(() => this.store.lock(REFRESH_LOCK_MS));
        if (taken === undefined) break;
        if (taken) {
          release = taken;
          continue;
        }
        polls++;
        await sleep(POLL_MS);
      }
      return await this.refresh();
    } finally {
      await release?.();
    }
  }

  private async refresh(): Promise<ZohoToken> {
    const { accountsUrl, apiDomain, clientId, clientSecret, refreshToken } = this.credentials;
    // The secrets travel in the form body only: never in the URL, which is logged.
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: clientId,
      client_secret: clientSecret,
      refresh_token: refreshToken,
    }).toString();
    try {
      this.token = await withRetries(async () => {
        const response = await this.http.request<Record<string, unknown> | null>({
          endpoint: ENDPOINT,
          method: 'POST',
          path: `${accountsUrl}/oauth/v2/token`,
          body,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          acceptStatus: [400, 401, 403],
        });
        return this.readAnswer(response.data ?? {}, apiDomain);
      }, this.retry);
      const token = this.token;
      await this.shared(() => this.store.save(token));
      return token;
    } catch (err) {
      if (err instanceof OutboundError && (err.failure === 'unauthorized' || err.failure === 'rate_limited')) {
        const until = this.now() + (err.failure === 'rate_limited' ? THROTTLED_FOR_MS : REFUSED_FOR_MS);
        this.refusal = { error: err, until };
        await this.shared(() => this.store.refuse({ failure: err.failure as TokenRefusal['failure'], status: err.status, excerpt: err.excerpt, until }));
        if (err.failure === 'unauthorized') this.onRefused?.(err.message);
      }
      throw err;
    }
  }

  /** A refusal another replica was given, as if this one had been. */
  private remember(refusal: TokenRefusal): OutboundError {
    const retryAfterMs = refusal.failure === 'rate_limited' ? Math.max(0, refusal.until - this.now()) : undefined;
    const error = new OutboundError('zoho_accounts', ENDPOINT, refusal.failure, refusal.status, refusal.excerpt, retryAfterMs);
    this.refusal = { error, until: refusal.until };
    return error;
  }

  /** Runs a store operation; undefined when the store fails, and the caller does without it. */
  private async shared<T>(operation: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await operation();
      if (this.storeDown) this.logger.log('the shared Zoho token store is back');
      this.storeDown = false;
      return result;
    } catch (err) {
      if (!this.storeDown) this.logger.warn(`the shared Zoho token store failed (${(err as Error).message}): this replica refreshes its own token meanwhile`);
      this.storeDown = true;
      return undefined;
    }
  }

  /**
   * A token another replica kept is used only for an API domain this connection may use now (the rule of the token
   * answers, below): the store is not trusted to name where the token goes, and the rule may have changed since.
   */
  private usable(token: ZohoToken): boolean {
    const domain = typeof token.apiDomain === 'string' ? token.apiDomain : '';
    const configured = this.credentials.apiDomain;
    const problem = domain === configured ? null : /^https?:\/\/[^/]/.test(domain) ? zohoDomainProblem('api_domain', domain, this.domains) : 'not a URL';
    if (problem) this.logger.warn(`the shared Zoho token names an API domain this connection may not use, not used: ${problem}`);
    return problem === null;
  }

  /**
   * The answer's API domain, where the access token will be sent: the configured one, or another of Zoho's (an
   * account moved between data centres). Any other host is refused, so a forged answer cannot collect the token.
   */
  private apiDomainOf(named: unknown, configured: string): string {
    if (typeof named !== 'string' || !/^https?:\/\/[^/]/.test(named)) return configured;
    const domain = withoutTrailingSlashes(named);
    if (domain === configured) return domain;
    const problem = zohoDomainProblem('api_domain', domain, this.domains);
    if (problem) return fail('rejected', `the token answer named an API domain that is not Zoho's, refused: ${problem}`);
    return domain;
  }

  /** Success or failure is decided by the body (Zoho answers errors with 200). */
  private readAnswer(answer: Record<string, unknown>, configuredApiDomain: string): ZohoToken {
    if (typeof answer.access_token === 'string' && answer.access_token !== '') {
      // Old answers carried `expires_in_sec`, and then `expires_in` was in milliseconds.
      const seconds = Number(answer.expires_in_sec ?? answer.expires_in ?? 3600);
      const lifetimeMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000;
      return {
        accessToken: answer.access_token,
        apiDomain: this.apiDomainOf(answer.api_domain, configuredApiDomain),
        renewAt: this.now() + lifetimeMs - Math.min(5 * 60_000, lifetimeMs / 5),
        scopes: parseGrantedScopes(answer.scope),
      };
    }
    const error = typeof answer.error === 'string' ? answer.error : 'no access_token in the answer';
    const description = typeof answer.error_description === 'string' ? `: ${answer.error_description}` : '';
    if (error === 'Access Denied' || /too many requests/i.test(description)) {
      return fail(
        'rate_limited',
        `Zoho throttled token requests (${error}${description}); at most 10 tokens per refresh token per 10 minutes`,
        THROTTLED_FOR_MS,
      );
    }
    return fail(
      'unauthorized',
      `Zoho refused the refresh token (${error}${description}): it is revoked or wrong, or the client id and secret do not match; ` +
        'connect Zoho CRM again from the console (or set a new RECORD_CRM_REFRESH_TOKEN)',
    );
  }
}

function fail(failure: 'unauthorized' | 'rate_limited' | 'rejected', message: string, retryAfterMs?: number): never {
  throw new OutboundError('zoho_accounts', ENDPOINT, failure, null, message, retryAfterMs);
}
