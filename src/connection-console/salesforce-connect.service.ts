import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { SalesforceOrgsService, describeIdentity } from '../appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import { apiScopeProblem, salesforceHostProblem, withoutTrailingSlash } from '../appointment-crm/adapters/salesforce/salesforce-hosts.js';
import { describeProblems, describeTurnedOff } from '../appointment-crm/adapters/salesforce/schema-check.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { isSalesforce, type SalesforceAppointmentCrmConnection } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { publicUrlOf } from '../connections/public-url.js';
import { oauthRequestBinding } from '../connections/sealed-binding.js';
import { OutboundError } from '../http/outbound-error.js';
import { OutboundHttp } from '../http/outbound-http.js';
import { OAuthStateRepository } from './oauth-state.repository.js';

export const SALESFORCE_CALLBACK_PATH = '/oauth/appointment-crm/callback';

/** The settings an admin gives to Connect; the client secret may be left out to reconnect the same Connected App. */
export type SalesforceConnectRequest = Omit<SalesforceAppointmentCrmConnection, 'kind' | 'refreshToken' | 'instanceUrl'>;

interface PendingConnect extends SalesforceConnectRequest {
  redirectUri: string;
  codeVerifier: string;
}

export type SalesforceConnectOutcome = { ok: true; actor: string; detail: string; complete: boolean } | { ok: false; status: 400 | 502; reason: string };

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const randomToken = (): string => randomBytes(32).toString('base64url');

/**
 * A Salesforce org through the OAuth 2.0 web server flow with PKCE (Salesforce Help, "OAuth 2.0 Web Server Flow for
 * Web App Integration", remoteaccess_oauth_web_server_flow.htm, and "Proof Key for Code Exchange (PKCE) Extension",
 * remoteaccess_pkce.htm): Connect keeps the Connected App's id and secret and the PKCE verifier sealed beside a
 * single-use state bound to the admin's browser, and sends the admin to `<login host>/services/oauth2/authorize`.
 * The callback exchanges the code with the verifier at `<login host>/services/oauth2/token`, takes the instance the
 * answer names (a Salesforce host unless custom domains are allowed), reads who consented (a consent without API
 * access is refused, its token revoked), checks every name against the org and saves the connection: names the org
 * lacks leave it degraded, listed, until other ones are picked. Disconnect revokes the refresh token
 * (`/services/oauth2/revoke`).
 */
@Injectable()
export class SalesforceConnectService {
  private readonly logger = new Logger('SalesforceConnect');
  private readonly login: OutboundHttp;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly oauthStates: OAuthStateRepository,
    private readonly orgs: SalesforceOrgsService,
  ) {
    this.login = new OutboundHttp({
      system: 'salesforce_login',
      timeoutMs: config.http.timeoutMs,
      maxJsonBytes: config.http.maxJsonBytes,
      retry: { ...config.http.retry, attempts: 1 },
    });
  }

  get redirectUri(): string {
    return `${publicUrlOf(this.config)}${SALESFORCE_CALLBACK_PATH}`;
  }

  loginUrlProblem(loginUrl: string): string | null {
    return salesforceHostProblem('login_url', loginUrl, this.config.salesforce.allowCustomDomains);
  }

  /** Starts a consent: the address of the org's authorization page, and the browser binding to set as a cookie. */
  async start(request: SalesforceConnectRequest, actor: string): Promise<{ authorizeUrl: string; binding: string }> {
    const state = randomToken();
    const binding = randomToken();
    const codeVerifier = randomToken();
    const pending: PendingConnect = { ...request, loginUrl: withoutTrailingSlash(request.loginUrl), redirectUri: this.redirectUri, codeVerifier };
    const stateHash = sha256(state);
    await this.oauthStates.add(
      stateHash,
      sha256(binding),
      actor,
      this.connections.seal(pending, oauthRequestBinding(stateHash, 'appointment_crm')),
      this.config.connections.stateTtlSeconds,
    );
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: request.clientId,
      redirect_uri: pending.redirectUri,
      // `api` for the REST API, `refresh_token` for a refresh token (Salesforce Help, "OAuth Tokens and Scopes").
      scope: 'api refresh_token',
      prompt: 'login consent',
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      state,
    });
    return { authorizeUrl: `${pending.loginUrl}/services/oauth2/authorize?${query.toString()}`, binding };
  }

  /** The org's redirect back: the state once, against this browser's binding; then the code exchange and the checks. */
  async finish(
    query: { code?: string; state?: string; error?: string; error_description?: string },
    binding: string | undefined,
  ): Promise<SalesforceConnectOutcome> {
    if (!query.state || !binding) return refused('the sign-in is missing its state or this browser’s cookie: start again from the console');
    const stateHash = sha256(query.state);
    const taken = await this.oauthStates.take(stateHash, sha256(binding));
    if (!taken) return refused('this sign-in is unknown, already used, expired, or was started in another browser: start again from the console');
    let pending: PendingConnect;
    try {
      pending = this.connections.open<PendingConnect>(taken.sealedRequest, oauthRequestBinding(stateHash, 'appointment_crm'));
    } catch {
      return refused('this sign-in was not started for the appointment CRM: start again from the console');
    }
    if (query.error) return refused(`Salesforce did not grant access (${`${query.error} ${query.error_description ?? ''}`.trim().slice(0, 160)})`);
    if (!query.code) return refused('Salesforce sent no authorization code');

    const grant = await this.exchange(pending, query.code);
    if ('reason' in grant) return { ok: false, status: 502, reason: grant.reason };
    const connection: SalesforceAppointmentCrmConnection = {
      kind: 'salesforce',
      loginUrl: pending.loginUrl,
      clientId: pending.clientId,
      clientSecret: pending.clientSecret,
      refreshToken: grant.refreshToken,
      instanceUrl: grant.instanceUrl,
      preset: pending.preset,
      names: pending.names,
      soldValue: pending.soldValue,
      pushes: pending.pushes,
    };
    const adapter = this.orgs.build(connection, 1);
    let detail: string;
    let complete: boolean;
    try {
      const who = await this.orgs.identity(adapter);
      const report = await this.orgs.schema(adapter, connection);
      complete = report.ok;
      const off = describeTurnedOff(report);
      detail = [
        describeIdentity(who),
        report.ok ? '' : `missing or wrong in the org: ${describeProblems(report)}`,
        off ? `not in this org (turned off): ${off}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    } catch (err) {
      await this.revoke(connection);
      const reason = err instanceof OutboundError ? err.excerpt || err.message : (err as Error).message;
      return { ok: false, status: 502, reason: `the org could not be read with this consent, nothing was saved: ${reason}` };
    }
    const previous = await this.connections.get('appointment_crm');
    await this.connections.save('appointment_crm', connection, taken.actor);
    // A name the org lacks is reported now and on the card (degraded) until other names are picked.
    await this.connections.recordCheck('appointment_crm', complete, complete ? null : 'schema_mismatch', detail);
    if (isSalesforce(previous) && previous.refreshToken !== connection.refreshToken) await this.revoke(previous);
    return { ok: true, actor: taken.actor, detail, complete };
  }

  /** Revokes a connection's refresh token at its login host; false (and logged) when that fails. */
  async revoke(connection: Pick<SalesforceAppointmentCrmConnection, 'loginUrl' | 'refreshToken'>): Promise<{ revoked: boolean; detail: string }> {
    try {
      await this.login.request({
        endpoint: 'POST /services/oauth2/revoke',
        method: 'POST',
        path: `${connection.loginUrl}/services/oauth2/revoke`,
        body: new URLSearchParams({ token: connection.refreshToken }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      return { revoked: true, detail: 'Salesforce revoked the refresh token' };
    } catch (err) {
      const detail = `the refresh token could not be revoked (${err instanceof OutboundError ? err.message : 'error'}); revoke it in Salesforce (Setup, Connected Apps OAuth Usage)`;
      this.logger.warn(detail);
      return { revoked: false, detail };
    }
  }

  private async exchange(pending: PendingConnect, code: string): Promise<{ refreshToken: string; instanceUrl: string } | { reason: string }> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: pending.clientId,
      client_secret: pending.clientSecret,
      redirect_uri: pending.redirectUri,
      code_verifier: pending.codeVerifier,
    }).toString();
    let answer: Record<string, unknown>;
    try {
      const response = await this.login.request<Record<string, unknown> | null>({
        endpoint: 'POST /services/oauth2/token',
        method: 'POST',
        path: `${pending.loginUrl}/services/oauth2/token`,
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        acceptStatus: [400, 401, 403],
      });
      answer = response.data ?? {};
    } catch (err) {
      return { reason: `the Salesforce login host did not answer the code exchange: ${err instanceof OutboundError ? err.message : 'error'}` };
    }
    if (typeof answer.access_token !== 'string') {
      const error =
        typeof answer.error === 'string'
          ? `${answer.error}${typeof answer.error_description === 'string' ? `: ${answer.error_description}` : ''}`
          : 'no access token';
      return {
        reason: `Salesforce refused the authorization code (${error.slice(0, 160)}): check the consumer secret and the callback URL, then connect again`,
      };
    }
    const noApi = apiScopeProblem(answer.scope);
    if (noApi) {
      // Refused now, not after data calls that would only ever answer INVALID_SESSION_ID; the grant is given back.
      if (typeof answer.refresh_token === 'string' && answer.refresh_token)
        await this.revoke({ loginUrl: pending.loginUrl, refreshToken: answer.refresh_token });
      return { reason: `${noApi}; nothing was saved` };
    }
    if (typeof answer.refresh_token !== 'string' || answer.refresh_token === '')
      return { reason: 'Salesforce issued no refresh token: add the "refresh_token, offline_access" scope to the Connected App, then connect again' };
    if (typeof answer.instance_url !== 'string') return { reason: 'Salesforce named no instance_url' };
    const instanceUrl = withoutTrailingSlash(answer.instance_url);
    const problem = salesforceHostProblem('instance_url', instanceUrl, this.config.salesforce.allowCustomDomains);
    if (problem) return { reason: `the token answer named an instance that is not Salesforce's, nothing was saved: ${problem}` };
    return { refreshToken: answer.refresh_token, instanceUrl };
  }
}

function refused(reason: string): SalesforceConnectOutcome {
  return { ok: false, status: 400, reason };
}
