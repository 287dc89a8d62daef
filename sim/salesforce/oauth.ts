/**
 * Salesforce's OAuth 2.0 endpoints for a Connected App: the web server flow with PKCE, the refresh token flow,
 * revocation and the identity URL (Salesforce Help, "OAuth 2.0 Web Server Flow for Web App Integration":
 * https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_oauth_web_server_flow.htm; REST API Developer Guide,
 * "How Are Apps Authenticated with the Web Server OAuth Authentication Flow?":
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_understanding_web_server_oauth_flow.htm).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { SimRequest, SimResponse } from '../common/sim-server.js';
import { escapeHtml } from '../zoho/consent-page.js';

/** The Connected App: its consumer key and secret, callback URLs and the OAuth scopes it was given. */
export interface ConnectedApp {
  clientId: string;
  clientSecret: string;
  callbackUrls: string[];
  /** Selected OAuth scopes; without `api` a token cannot call the REST API; without `refresh_token` no refresh token is issued. */
  scopes: string[];
  name: string;
}

export interface SfConsent {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  approved: boolean;
}

export interface AccessGrant {
  userId: string;
  scopes: string[];
  refreshToken: string | null;
  /** The consent it descends from: every refresh token a rotation issued after it, and their access tokens. */
  family: string;
  expired: boolean;
}

interface RefreshGrant {
  clientId: string;
  scopes: string[];
  userId: string;
  family: string;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  expiresAt: number;
}

/** Salesforce's authorization codes are good for 15 minutes, once (web server flow page). */
export const AUTHORIZATION_CODE_LIFETIME_MS = 15 * 60 * 1000;

export const DEFAULT_SCOPES = ['api', 'refresh_token', 'id'];

const HTML = { 'content-type': 'text/html; charset=utf-8' };

/** A token endpoint error: HTTP 400 with `{error, error_description}` (RFC 6749 §5.2, as Salesforce answers). */
const tokenError = (error: string, description: string, status = 400): SimResponse => ({ status, body: { error, error_description: description } });

function redirect(uri: string, params: Record<string, string | null>): SimResponse {
  const query = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return { status: 302, headers: { location: `${uri}${uri.includes('?') ? '&' : '?'}${query}` } };
}

function page(title: string, body: string, status = 200): SimResponse {
  return {
    status,
    headers: HTML,
    body: `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n${body}\n</body>\n</html>\n`,
  };
}

/**
 * Token endpoint parameters come in a form body, or in the query string as Salesforce also accepts; the client id and
 * secret may instead come in an `Authorization: Basic` header (refresh token flow page).
 */
export function formParams(req: SimRequest): URLSearchParams {
  const params = new URLSearchParams(req.query);
  for (const [k, v] of new URLSearchParams(req.body.toString('utf8'))) params.set(k, v);
  const basic = /^Basic\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
  if (basic) {
    const [id, ...secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
    params.set('client_id', decodeURIComponent(id));
    params.set('client_secret', decodeURIComponent(secret.join(':')));
  }
  return params;
}

const base64url = (bytes: Buffer) => bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export class SalesforceOAuth {
  readonly consents: SfConsent[] = [];
  readonly revokedTokens: string[] = [];
  /** `GET /services/oauth2/authorize` redirects with a code at once instead of showing the consent page. */
  autoApprove = false;
  authorizationCodeLifetimeMs = AUTHORIZATION_CODE_LIFETIME_MS;
  private readonly apps = new Map<string, ConnectedApp>();
  private readonly codes = new Map<string, PendingCode>();
  private readonly refreshGrants = new Map<string, RefreshGrant>();
  private readonly accessTokens = new Map<string, AccessGrant>();
  /** Refresh tokens a rotation replaced, and the consent each came from. */
  private readonly rotatedOut = new Map<string, string>();
  private issued = 0;
  /**
   * Refresh token rotation, on the Connected App or External Client App: each refresh answers a new refresh token and
   * invalidates the one presented; presenting a replaced one again revokes the current refresh token and every access
   * token of the consent (Salesforce Help, "OAuth 2.0 Refresh Token Flow for Renewed Sessions",
   * https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_oauth_refresh_token_flow.htm, and "Force
   * one-time-use Refresh Tokens - (RTR) Refresh Token Rotation", https://help.salesforce.com/s/articleView?id=005316711&type=1).
   * Access tokens issued before a rotation stay valid until their session ends.
   */
  rotateRefreshTokens = false;
  /** Rotations so far, and how often a replaced refresh token was presented again (each revoked its consent). */
  rotations = 0;
  reusedRefreshTokens = 0;

  constructor(private readonly org: { orgId: () => string; userId: () => string; loginUrl: () => string; instanceUrl: () => string }) {}

  get tokensIssued(): number {
    return this.issued;
  }

  registerApp(app: ConnectedApp): void {
    this.apps.set(app.clientId, { ...app, callbackUrls: [...app.callbackUrls], scopes: [...app.scopes] });
  }

  app(clientId: string): ConnectedApp | undefined {
    return this.apps.get(clientId);
  }

  /** A refresh token as if a user had consented to `scopes` for the app. */
  issueRefreshToken(clientId: string, scopes: string[]): string {
    const token = `5Aep861${base64url(randomBytes(40)).replace(/[-_]/g, 'x')}`;
    this.refreshGrants.set(token, { clientId, scopes, userId: this.org.userId(), family: token });
    return token;
  }

  /** Whether a refresh token is live (issued, not rotated out or revoked). */
  isLive(refreshToken: string): boolean {
    return this.refreshGrants.has(refreshToken);
  }

  scopesOf(refreshToken: string): string[] | undefined {
    return this.refreshGrants.get(refreshToken)?.scopes;
  }

  /** The grant behind an access token; undefined for one never issued or revoked. */
  grantOf(accessToken: string): AccessGrant | undefined {
    return this.accessTokens.get(accessToken);
  }

  /** Every access token issued so far stops working (a session timeout); refresh tokens still work. */
  expireAccessTokens(): void {
    for (const grant of this.accessTokens.values()) grant.expired = true;
  }

  revokeRefreshToken(refreshToken: string): void {
    this.refreshGrants.delete(refreshToken);
    for (const [token, grant] of this.accessTokens) if (grant.refreshToken === refreshToken) this.accessTokens.delete(token);
  }

  /** A replaced refresh token presented again: the consent's live refresh token and all its access tokens are revoked. */
  private revokeFamily(family: string): void {
    for (const [token, grant] of this.refreshGrants) if (grant.family === family) this.refreshGrants.delete(token);
    for (const [token, grant] of this.accessTokens) if (grant.family === family) this.accessTokens.delete(token);
  }

  // GET /services/oauth2/authorize
  authorize(req: SimRequest): SimResponse {
    const params = req.query;
    const app = this.apps.get(params.get('client_id') ?? '');
    // Salesforce shows an error page (no redirect) for an unknown client or a callback URL the app does not list.
    if (!app) return page('Error', '<h1>error=invalid_client_id</h1>\n<p id="error">client identifier invalid</p>', 400);
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!app.callbackUrls.includes(redirectUri))
      return page('Error', '<h1>error=redirect_uri_mismatch</h1>\n<p id="error">redirect_uri must match configuration</p>', 400);
    const state = params.get('state');
    if (params.get('response_type') !== 'code')
      return redirect(redirectUri, { error: 'unsupported_response_type', error_description: 'response type not supported', state });
    const method = params.get('code_challenge_method');
    if (params.get('code_challenge') && method && method !== 'S256')
      return redirect(redirectUri, { error: 'invalid_request', error_description: 'invalid code_challenge_method', state });
    if (this.autoApprove) return this.decide(params, true);
    const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('\n');
    const scopes = this.grantedScopes(app, params.get('scope'))
      .map((s) => `<li>${escapeHtml(s)}</li>`)
      .join('\n');
    return page(
      'Allow Access?',
      `<h1>Allow Access?</h1>\n<p>${escapeHtml(app.name)} is asking to:</p>\n<ul id="scopes">\n${scopes}\n</ul>\n` +
        `<form method="post" action="/services/oauth2/authorize/approve">\n${hidden}\n<button type="submit">Allow</button>\n</form>\n` +
        `<form method="post" action="/services/oauth2/authorize/deny">\n${hidden}\n<button type="submit">Deny</button>\n</form>`,
    );
  }

  // POST /services/oauth2/authorize/approve | deny: the consent page's buttons (the page's own form posts).
  decision(req: SimRequest, approved: boolean): SimResponse {
    return this.decide(new URLSearchParams(req.body.toString('utf8')), approved);
  }

  private decide(params: URLSearchParams, approved: boolean): SimResponse {
    const app = this.apps.get(params.get('client_id') ?? '');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!app || !app.callbackUrls.includes(redirectUri)) return page('Error', '<p id="error">invalid request</p>', 400);
    const state = params.get('state');
    const scopes = this.grantedScopes(app, params.get('scope'));
    this.consents.push({ clientId: app.clientId, redirectUri, scopes, state, approved });
    if (!approved) return redirect(redirectUri, { error: 'access_denied', error_description: 'end-user denied authorization', state });
    // Codes end in `==`, so a client must decode the callback's query (`%3D%3D`) before exchanging one.
    const code = `aPrx${base64url(randomBytes(30))}==`;
    this.codes.set(code, {
      clientId: app.clientId,
      redirectUri,
      scopes,
      codeChallenge: params.get('code_challenge'),
      expiresAt: Date.now() + this.authorizationCodeLifetimeMs,
    });
    return redirect(redirectUri, { code, state });
  }

  /** The scopes asked for (space-separated) that the app has; all the app's scopes when none are asked for. */
  private grantedScopes(app: ConnectedApp, scope: string | null): string[] {
    const asked = (scope ?? '').split(/\s+/).filter(Boolean);
    return asked.length ? asked.filter((s) => app.scopes.includes(s) || (s === 'offline_access' && app.scopes.includes('refresh_token'))) : [...app.scopes];
  }

  // POST /services/oauth2/token
  token(req: SimRequest): SimResponse {
    const params = formParams(req);
    const grantType = params.get('grant_type');
    const app = this.apps.get(params.get('client_id') ?? '');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') return tokenError('unsupported_grant_type', 'grant type not supported');
    if (!app) return tokenError('invalid_client_id', 'client identifier invalid');
    const secret = params.get('client_secret');
    if (grantType === 'authorization_code' && secret !== app.clientSecret) return tokenError('invalid_client', 'invalid client credentials');
    if (grantType === 'refresh_token' && secret !== null && secret !== app.clientSecret) return tokenError('invalid_client', 'invalid client credentials');
    return grantType === 'authorization_code' ? this.codeGrant(params, app) : this.refreshGrant(params, app);
  }

  private codeGrant(params: URLSearchParams, app: ConnectedApp): SimResponse {
    const code = params.get('code') ?? '';
    const pending = this.codes.get(code);
    if (!pending || pending.clientId !== app.clientId) return tokenError('invalid_grant', 'invalid authorization code');
    this.codes.delete(code);
    if (pending.expiresAt < Date.now()) return tokenError('invalid_grant', 'expired authorization code');
    if (params.get('redirect_uri') !== pending.redirectUri) return tokenError('redirect_uri_mismatch', 'redirect_uri must match configuration');
    // PKCE: a code_challenge without a code_verifier fails with invalid_grant, a verifier that does not hash to the
    // challenge with invalid_request (the web server flow page, code_challenge).
    if (pending.codeChallenge) {
      const verifier = params.get('code_verifier');
      if (!verifier) return tokenError('invalid_grant', 'invalid code verifier');
      if (base64url(createHash('sha256').update(verifier).digest()) !== pending.codeChallenge) return tokenError('invalid_request', 'invalid code verifier');
    }
    const offline = pending.scopes.includes('refresh_token') || pending.scopes.includes('offline_access');
    const refreshToken = offline ? this.issueRefreshToken(app.clientId, pending.scopes) : null;
    return this.tokenAnswer(app, pending.scopes, refreshToken, true, refreshToken ?? `code:${code}`);
  }

  private refreshGrant(params: URLSearchParams, app: ConnectedApp): SimResponse {
    const presented = params.get('refresh_token') ?? '';
    const replaced = this.rotatedOut.get(presented);
    if (replaced) {
      this.reusedRefreshTokens += 1;
      this.revokeFamily(replaced);
      return tokenError('invalid_grant', 'expired access/refresh token');
    }
    const grant = this.refreshGrants.get(presented);
    if (!grant || grant.clientId !== app.clientId) return tokenError('invalid_grant', 'expired access/refresh token');
    if (!this.rotateRefreshTokens) return this.tokenAnswer(app, grant.scopes, presented, false, grant.family);
    const next = `5Aep861${base64url(randomBytes(40)).replace(/[-_]/g, 'x')}`;
    this.refreshGrants.delete(presented);
    this.refreshGrants.set(next, grant);
    this.rotatedOut.set(presented, grant.family);
    this.rotations += 1;
    return this.tokenAnswer(app, grant.scopes, next, true, grant.family);
  }

  /**
   * The token answer: access_token, refresh_token (on the code grant, and on a refresh under rotation), signature (HMAC-SHA256 of id + issued_at
   * keyed by the consumer secret, base64), scope, instance_url, id (the identity URL), token_type, issued_at (ms).
   */
  private tokenAnswer(app: ConnectedApp, scopes: string[], refreshToken: string | null, includeRefresh: boolean, family: string): SimResponse {
    const accessToken = `${this.org.orgId().slice(0, 15)}!AQ${base64url(randomBytes(48)).replace(/[-_]/g, '.')}`;
    this.accessTokens.set(accessToken, { userId: this.org.userId(), scopes, refreshToken, family, expired: false });
    this.issued += 1;
    const issuedAt = String(Date.now());
    const id = `${this.org.loginUrl()}/id/${this.org.orgId()}/${this.org.userId()}`;
    const body: Record<string, string> = {
      access_token: accessToken,
      ...(includeRefresh && refreshToken ? { refresh_token: refreshToken } : {}),
      signature: createHmac('sha256', app.clientSecret)
        .update(id + issuedAt)
        .digest('base64'),
      // The scopes the consent granted, space-separated; a client learns here whether it may call the REST API (`api`)
      // (Salesforce Help, "OAuth Tokens and Scopes": https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_tokens_scopes.htm).
      scope: scopes.join(' '),
      instance_url: this.org.instanceUrl(),
      id,
      token_type: 'Bearer',
      issued_at: issuedAt,
    };
    return { status: 200, body };
  }

  // POST /services/oauth2/revoke (and GET with ?token=): revoking a refresh token revokes its access tokens too
  // (Salesforce Help, "Revoke OAuth Tokens": https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_revoke_token.htm).
  revoke(req: SimRequest): SimResponse {
    const token = formParams(req).get('token') ?? '';
    if (this.refreshGrants.has(token)) {
      this.revokeRefreshToken(token);
    } else if (this.accessTokens.has(token)) {
      this.accessTokens.delete(token);
    } else {
      return tokenError('unsupported_token_type', 'this token type is not supported');
    }
    this.revokedTokens.push(token);
    return { status: 200 };
  }
}
