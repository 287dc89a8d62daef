import { randomBytes } from 'node:crypto';
import type { SimHandler, SimRequest, SimResponse } from '../common/sim-server.js';
import { consentPage, errorPage } from './consent-page.js';
import { isKnownScope, lacking, requiredScopes, type ScopedCall, type ScopeReading } from './scopes.js';
import { zohoError, type IssuedToken, type ZohoConsent, type ZohoOAuthClient, type ZohoUserAccount } from './zoho-types.js';

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

export const AUTHORIZE_PATH = '/oauth/v2/auth';
export const APPROVE_PATH = '/oauth/v2/auth/approve';
export const REJECT_PATH = '/oauth/v2/auth/reject';

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

/** What the accounts side reads of the simulator's switches (set by the tests on ZohoSim). */
export interface ZohoAccountsSettings {
  tokenLifetimeSeconds: number;
  legacyExpiresInMs: boolean;
  throttleLimit: number;
  scopeInTokenAnswers: boolean;
  scopeReading: ScopeReading;
  account: ZohoUserAccount;
  scopeMismatch: boolean;
  scopeMismatchStatus: 401 | 403;
  autoApprove: boolean;
  dataCenter: string;
  authorizationCodeLifetimeMs: number;
  readonly consents: ZohoConsent[];
  readonly revokedTokens: string[];
  answeredApiDomain: string | null;
  readonly apiDomain: string;
  accountsOf(location: string): { url: string };
}

/**
 * Zoho's OAuth accounts server (every data centre's): the consent page, the token and revoke endpoints, and the
 * token check of every API call (`authed`). Its clients, codes and tokens live here; its switches on ZohoSim.
 */
export class ZohoAccounts {
  readonly clients = new Map<string, ZohoOAuthClient>();
  readonly codes = new Map<string, AuthorizationCode>();
  readonly refreshGrants = new Map<string, RefreshGrant>();
  readonly tokens = new Map<string, IssuedToken>();
  private readonly grantTimes = new Map<string, number[]>();
  private readonly revoked = new Set<string>();
  /** The client and user pairs given a refresh token once: Zoho gives another only with prompt=consent. */
  private readonly offlineConsents = new Set<string>();
  issued = 0;

  constructor(private readonly sim: ZohoAccountsSettings) {}

  /** Registers an OAuth client, replacing one with the same id. */
  registerClient(client: ZohoOAuthClient): void {
    this.clients.set(client.clientId, { ...client, redirectUris: [...client.redirectUris] });
  }

  /** Adds a redirect URI to a registered client. */
  addRedirectUri(redirectUri: string, clientId: string): void {
    const client = this.clients.get(clientId);
    if (!client) throw new Error(`no Zoho OAuth client ${clientId}`);
    client.redirectUris.push(redirectUri);
  }

  /** The scopes a refresh token was granted (the configured one: SELF_CLIENT_SCOPES); undefined for a token never issued. */
  scopesOf(refreshToken: string): string[] | undefined {
    const scopes = this.refreshGrants.get(refreshToken)?.scopes;
    return scopes && [...scopes];
  }

  /** Revokes a refresh token and the access tokens it gave. */
  revokeRefreshToken(refreshToken: string): void {
    this.revoked.add(refreshToken);
    for (const token of this.tokens.values()) if (token.refreshToken === refreshToken) token.expired = true;
  }

  expireAllTokens(): void {
    for (const token of this.tokens.values()) token.expired = true;
  }

  // --- authorization ---

  authorize(req: SimRequest): SimResponse {
    const request = this.authorizationRequest(req.query);
    if ('status' in request) return request;
    if (this.sim.autoApprove) return this.approve(request);
    const clientName = request.client.name ?? request.client.clientId;
    return consentPage({ clientName, scopes: request.scopes, params: req.query, approveAction: APPROVE_PATH, rejectAction: REJECT_PATH });
  }

  /** The consent page's Accept or Reject: its form carries the authorization request back, checked again. */
  decide(req: SimRequest, approved: boolean): SimResponse {
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
      account: this.sim.account,
      location: this.sim.dataCenter,
      expiresAt: Date.now() + this.sim.authorizationCodeLifetimeMs,
    });
    this.recordConsent(request, true);
    // Zoho sends the user back naming the data centre of their account, whichever accounts server they started at.
    return redirect(redirectUri, {
      code,
      location: this.sim.dataCenter,
      'accounts-server': this.sim.accountsOf(this.sim.dataCenter).url,
      state: request.state,
    });
  }

  private reject(request: AuthorizationRequest): SimResponse {
    this.recordConsent(request, false);
    return redirect(request.redirectUri, { error: 'access_denied', state: request.state });
  }

  private recordConsent({ client, redirectUri, scopes, state }: AuthorizationRequest, approved: boolean): void {
    this.sim.consents.push({ clientId: client.clientId, redirectUri, scopes, state, approved });
  }

  // --- tokens ---

  grant(req: SimRequest, location: string): SimResponse {
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
    if (recent.length >= this.sim.throttleLimit) return true;
    recent.push(now);
    return false;
  }

  newRefreshToken(clientId: string, scopes: string[], account: ZohoUserAccount, location = this.sim.dataCenter): string {
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
      expiresAt: Date.now() + this.sim.tokenLifetimeSeconds * 1000,
      expired: false,
    });
    this.issued += 1;
    return accessToken;
  }

  private tokenAnswer(accessToken: string, refreshToken: string | null): SimResponse {
    const scopes = this.tokens.get(accessToken)?.scopes ?? [];
    const lifetime = this.sim.legacyExpiresInMs
      ? { expires_in_sec: this.sim.tokenLifetimeSeconds, expires_in: this.sim.tokenLifetimeSeconds * 1000 }
      : { expires_in: this.sim.tokenLifetimeSeconds };
    const refresh = refreshToken ? { refresh_token: refreshToken } : {};
    return {
      status: 200,
      body: {
        access_token: accessToken,
        ...refresh,
        ...(this.sim.scopeInTokenAnswers ? { scope: scopes.join(' ') } : {}),
        api_domain: this.sim.answeredApiDomain ?? this.sim.apiDomain,
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
  revoke(req: SimRequest, location: string): SimResponse {
    const token = paramsOf(req).get('token') ?? '';
    const accessToken = this.tokens.get(token);
    const grant = this.refreshGrants.get(token);
    if (grant && grant.location === location && !this.revoked.has(token)) this.revokeRefreshToken(token);
    else if (accessToken && !accessToken.expired) accessToken.expired = true;
    else return { status: 400, body: { error: 'invalid_token' } };
    this.sim.revokedTokens.push(token);
    return { status: 200, body: { status: 'success' } };
  }

  /** A call with a valid token holding the scopes `target` needs under `scopeReading`, else Zoho's refusal. */
  authed(target: (req: SimRequest) => ScopedCall, handler: (req: SimRequest, token: IssuedToken) => SimResponse | Promise<SimResponse>): SimHandler {
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
      if (this.sim.scopeMismatch || lacking(token.scopes, requiredScopes(target(req), this.sim.scopeReading)).length > 0) {
        const message = this.sim.scopeMismatchStatus === 403 ? 'required oauth scope is missing' : 'invalid oauth scope to access this URL';
        return { status: this.sim.scopeMismatchStatus, body: zohoError('OAUTH_SCOPE_MISMATCH', message) };
      }
      return handler(req, token);
    };
  }
}
