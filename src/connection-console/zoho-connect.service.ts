import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OutboundError } from '../http/outbound-error.js';
import { OutboundHttp } from '../http/outbound-http.js';
import { describeAccount, NO_CRM_ORGANIZATION, readZohoAccount } from '../record-crm/zoho/zoho-account.js';
import { ZOHO_SCOPES } from '../record-crm/zoho/zoho-scopes.js';
import { OAuthStateRepository } from './oauth-state.repository.js';
import type { RecordCrmConnection } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { publicUrlOf } from '../connections/public-url.js';
import { oauthRequestBinding } from '../connections/sealed-binding.js';
import { dataCentreOf, isTrustedAccountsServer, ZOHO_DATA_CENTRES } from '../config/zoho-data-centres.js';
import { withoutTrailingSlashes, zohoDomainProblem } from '../config/zoho-domains.js';

export const CALLBACK_PATH = '/admin/connections/record-crm/callback';

/** What is kept, sealed, between Connect and the callback: the client the admin entered. */
interface PendingConnect {
  accountsUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  location?: string;
  'accounts-server'?: string;
}

export type ConnectOutcome = { ok: true; actor: string; dataCentre: string | null; apiDomain: string } | { ok: false; status: 400 | 502; reason: string };

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const randomToken = (): string => randomBytes(32).toString('base64url');

/**
 * Zoho CRM through OAuth 2.0's authorization-code flow. Connect keeps the client's credentials sealed beside a
 * single-use `state`, short-lived and bound to the admin's browser (a cookie whose hash is stored with it), and sends
 * the admin to Zoho's consent page. The callback takes the state once, exchanges the code at the accounts server of
 * the account's data centre (`accounts-server`), and saves the refresh token and API domain as the connection.
 * Disconnect revokes the refresh token.
 */
@Injectable()
export class ZohoConnectService {
  private readonly logger = new Logger('ZohoConnect');
  private readonly accounts: OutboundHttp;
  private readonly api: OutboundHttp;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly oauthStates: OAuthStateRepository,
  ) {
    this.accounts = new OutboundHttp({
      system: 'zoho_accounts',
      timeoutMs: config.http.timeoutMs,
      maxJsonBytes: config.http.maxJsonBytes,
      retry: { ...config.http.retry, attempts: 1 },
    });
    this.api = new OutboundHttp({
      system: 'zoho',
      timeoutMs: config.http.timeoutMs,
      maxJsonBytes: config.http.maxJsonBytes,
      retry: { ...config.http.retry, attempts: 1 },
    });
  }

  get redirectUri(): string {
    return `${publicUrlOf(this.config)}${CALLBACK_PATH}`;
  }

  /** Starts a consent: the address of Zoho's consent page, and the browser binding to set as a cookie. */
  async start(client: { accountsUrl: string; clientId: string; clientSecret: string }, actor: string): Promise<{ authorizeUrl: string; binding: string }> {
    const state = randomToken();
    const binding = randomToken();
    const pending: PendingConnect = { ...client, redirectUri: this.redirectUri };
    const stateHash = sha256(state);
    await this.oauthStates.add(
      stateHash,
      sha256(binding),
      actor,
      this.connections.seal(pending, oauthRequestBinding(stateHash)),
      this.config.connections.stateTtlSeconds,
    );
    const query = new URLSearchParams({
      scope: ZOHO_SCOPES,
      client_id: client.clientId,
      response_type: 'code',
      access_type: 'offline',
      prompt: 'consent',
      redirect_uri: pending.redirectUri,
      state,
    });
    return { authorizeUrl: `${client.accountsUrl}/oauth/v2/auth?${query.toString()}`, binding };
  }

  /** Zoho's redirect back: checks the state against the browser's binding, once, and exchanges the code. */
  async finish(query: CallbackQuery, binding: string | undefined): Promise<ConnectOutcome> {
    if (!query.state || !binding) return refused('the sign-in is missing its state or this browser’s cookie: start again from the console');
    const stateHash = sha256(query.state);
    const taken = await this.oauthStates.take(stateHash, sha256(binding));
    if (!taken) return refused('this sign-in is unknown, already used, expired, or was started in another browser: start again from the console');
    if (query.error) return refused(`Zoho did not grant access (${query.error.slice(0, 100)})`);
    if (!query.code) return refused('Zoho sent no authorization code');
    const pending = this.connections.open<PendingConnect>(taken.sealedRequest, oauthRequestBinding(stateHash));
    const accountsServer = (query['accounts-server'] ?? pending.accountsUrl).replace(/\/+$/, '');
    // A test double's data centres are hosts of its own: trusted only where custom domains are (RECORD_CRM_ALLOW_CUSTOM_DOMAINS).
    if (!isTrustedAccountsServer(accountsServer, pending.accountsUrl) && !this.config.zohoDomains.allowCustom)
      return refused(`Zoho named an accounts server crm-sync does not know: ${accountsServer}`);

    const grant = await this.exchange(accountsServer, pending, query.code);
    if ('reason' in grant) return { ok: false, status: 502, reason: grant.reason };
    const connection: RecordCrmConnection = {
      accountsUrl: accountsServer,
      apiDomain: grant.apiDomain,
      clientId: pending.clientId,
      clientSecret: pending.clientSecret,
      refreshToken: grant.refreshToken,
    };
    // A consent given as a Zoho user of no CRM organization would show "connected" and fail every push: refused here.
    const account = await this.accountOf(grant.apiDomain, grant.accessToken);
    if (typeof account === 'string' || account === null) {
      await this.revoke(connection);
      return { ok: false, status: 502, reason: account ?? NO_CRM_ORGANIZATION };
    }
    const previous = await this.connections.get('record_crm');
    await this.connections.save('record_crm', connection, taken.actor);
    await this.connections.recordCheck('record_crm', true, null, describeAccount(account));
    if (previous && previous.refreshToken !== grant.refreshToken) await this.revoke(previous);
    return { ok: true, actor: taken.actor, dataCentre: dataCentreOf(accountsServer), apiDomain: grant.apiDomain };
  }

  /** Revokes a connection's refresh token at its accounts server; false (and logged) when that fails. */
  async revoke(connection: RecordCrmConnection): Promise<{ revoked: boolean; detail: string }> {
    try {
      // Zoho takes the token in the query; OutboundHttp never logs or traces a query string.
      await this.accounts.request({
        endpoint: 'POST /oauth/v2/token/revoke',
        method: 'POST',
        path: `${connection.accountsUrl}/oauth/v2/token/revoke`,
        params: { token: connection.refreshToken },
      });
      return { revoked: true, detail: 'Zoho revoked the refresh token' };
    } catch (err) {
      const detail = `the refresh token could not be revoked (${err instanceof OutboundError ? err.message : 'error'}); revoke it in Zoho's API console`;
      this.logger.warn(detail);
      return { revoked: false, detail };
    }
  }

  /** Whose CRM the new token reaches; a string: why that could not be read. */
  private async accountOf(apiDomain: string, accessToken: string) {
    try {
      return await readZohoAccount(async (endpoint, path, params) => {
        const { status, data } = await this.api.request<unknown>({
          endpoint,
          method: 'GET',
          path: `${apiDomain}/crm/v8${path}`,
          params,
          headers: { authorization: `Zoho-oauthtoken ${accessToken}` },
        });
        return { status, data };
      });
    } catch (err) {
      return `Zoho did not say which CRM organization this consent reaches (${err instanceof OutboundError ? err.message : 'error'}); nothing was saved`;
    }
  }

  private async exchange(
    accountsServer: string,
    pending: PendingConnect,
    code: string,
  ): Promise<{ refreshToken: string; accessToken: string; apiDomain: string } | { reason: string }> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: pending.clientId,
      client_secret: pending.clientSecret,
      redirect_uri: pending.redirectUri,
      code,
    }).toString();
    let answer: Record<string, unknown>;
    try {
      const response = await this.accounts.request<Record<string, unknown> | null>({
        endpoint: 'POST /oauth/v2/token',
        method: 'POST',
        path: `${accountsServer}/oauth/v2/token`,
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        acceptStatus: [400, 401, 403],
      });
      answer = response.data ?? {};
    } catch (err) {
      return { reason: `the Zoho accounts server did not answer the code exchange: ${err instanceof OutboundError ? err.message : 'error'}` };
    }
    if (typeof answer.access_token === 'string' && (typeof answer.refresh_token !== 'string' || answer.refresh_token === '')) {
      return {
        reason:
          'Zoho issued no refresh token (it gives one on the first consent, and again only when asked to show the consent page): ' +
          "remove crm-sync under Connected Apps in your Zoho account's settings, then connect again",
      };
    }
    if (typeof answer.refresh_token !== 'string' || answer.refresh_token === '' || typeof answer.access_token !== 'string') {
      const error = typeof answer.error === 'string' ? answer.error : 'no refresh_token in the answer';
      if (error === 'invalid_client_secret' && accountsServer !== pending.accountsUrl) {
        return {
          reason:
            `the accounts server of your Zoho account's data centre (${accountsServer}) refused the client secret: your client has a ` +
            "secret of its own there. In Zoho's API console open the client's Settings, turn on the data centre and choose to use the " +
            'same client secret for all data centres, or choose that data centre here and enter its secret; then connect again',
        };
      }
      return { reason: `Zoho refused the authorization code (${error.slice(0, 100)}): check the client secret and the redirect URI, then connect again` };
    }
    const apiDomain =
      typeof answer.api_domain === 'string' && /^https?:\/\//.test(answer.api_domain)
        ? withoutTrailingSlashes(answer.api_domain)
        : (ZOHO_DATA_CENTRES.find((dc) => dc.accountsUrl === accountsServer)?.apiDomain ?? null);
    if (!apiDomain) return { reason: 'Zoho named no API domain for this account' };
    const problem = zohoDomainProblem('api_domain', apiDomain, this.config.zohoDomains);
    if (problem) return { reason: `the token answer named an API domain that is not Zoho's, nothing was saved: ${problem}` };
    return { refreshToken: answer.refresh_token, accessToken: answer.access_token, apiDomain };
  }
}

function refused(reason: string): ConnectOutcome {
  return { ok: false, status: 400, reason };
}
