import type { RetryPolicy } from '../config/app-config.js';
import { OutboundError } from '../http/outbound-error.js';
import type { OutboundHttp } from '../http/outbound-http.js';
import { withRetries } from '../http/retry.js';

export interface ZohoCredentials {
  accountsUrl: string;
  apiDomain: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

export interface ZohoToken {
  accessToken: string;
  /** Where API calls go: the `api_domain` of the token answer, else the configured one. */
  apiDomain: string;
  /** When to stop using it: shortly before Zoho's expiry. */
  renewAt: number;
}

const ENDPOINT = 'POST /oauth/v2/token';
/** A refused refresh token stays refused until someone re-authorises (a new connection gets a new ZohoAuth). */
const REFUSED_FOR_MS = 10 * 60_000;
/** Zoho grants 10 tokens per refresh token per 10 minutes; once throttled, wait a minute before asking again. */
const THROTTLED_FOR_MS = 60_000;

/**
 * Access tokens of Zoho's refresh-token grant. One token is shared by every job of the process and renewed
 * shortly before it expires or when Zoho calls it invalid; concurrent callers share one refresh. A refusal is
 * remembered for a while, so a bad refresh token fails jobs at once instead of asking the accounts server (and
 * using up its quota) on every job.
 */
export class ZohoAuth {
  private token: ZohoToken | null = null;
  private refreshing: Promise<ZohoToken> | null = null;
  private refusal: { error: OutboundError; until: number } | null = null;

  constructor(
    private readonly http: OutboundHttp,
    private readonly credentials: ZohoCredentials,
    private readonly retry: RetryPolicy,
    private readonly now: () => number = Date.now,
    /** Told when Zoho refuses the refresh token (an alert); must return at once and never throw. */
    private readonly onRefused?: (reason: string) => void,
  ) {}

  /** A valid token, refreshed when needed; throws an OutboundError when none can be obtained. */
  get(): Promise<ZohoToken> {
    if (this.token && this.now() < this.token.renewAt) return Promise.resolve(this.token);
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Zoho called this token invalid: drop it, unless another caller has replaced it already. */
  invalidate(accessToken: string): void {
    if (this.token?.accessToken === accessToken) this.token = null;
  }

  private async refresh(): Promise<ZohoToken> {
    if (this.refusal && this.now() < this.refusal.until) throw this.refusal.error;
    this.refusal = null;
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
      return this.token;
    } catch (err) {
      if (err instanceof OutboundError && (err.failure === 'unauthorized' || err.failure === 'rate_limited')) {
        this.refusal = { error: err, until: this.now() + (err.failure === 'rate_limited' ? THROTTLED_FOR_MS : REFUSED_FOR_MS) };
        if (err.failure === 'unauthorized') this.onRefused?.(err.message);
      }
      throw err;
    }
  }

  /** Success or failure is decided by the body (Zoho answers errors with 200). */
  private readAnswer(answer: Record<string, unknown>, configuredApiDomain: string): ZohoToken {
    if (typeof answer.access_token === 'string' && answer.access_token !== '') {
      // Old answers carried `expires_in_sec`, and then `expires_in` was in milliseconds.
      const seconds = Number(answer.expires_in_sec ?? answer.expires_in ?? 3600);
      const lifetimeMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000;
      const domain = typeof answer.api_domain === 'string' && /^https?:\/\/[^/]/.test(answer.api_domain) ? answer.api_domain : configuredApiDomain;
      return {
        accessToken: answer.access_token,
        apiDomain: withoutTrailingSlashes(domain),
        renewAt: this.now() + lifetimeMs - Math.min(5 * 60_000, lifetimeMs / 5),
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

/** `/\/+$/` would take quadratic time on an answer of many slashes followed by something else. */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

function fail(failure: 'unauthorized' | 'rate_limited', message: string, retryAfterMs?: number): never {
  throw new OutboundError('zoho_accounts', ENDPOINT, failure, null, message, retryAfterMs);
}
