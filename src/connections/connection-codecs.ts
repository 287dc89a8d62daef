import { isSalesforce, type ConnectionName, type ConnectionSettings } from '../config/connection-settings.js';

type Plain = Record<string, string>;
type Secrets = Record<string, unknown>;

interface Codec<N extends ConnectionName> {
  /** Splits settings into what is stored in plain text and what is sealed. */
  split(settings: ConnectionSettings[N]): { plain: Plain; secrets: Secrets };
  join(plain: Plain, secrets: Secrets): ConnectionSettings[N];
  /** What an admin may see: no secret, at most its last 4 characters. */
  view(settings: ConnectionSettings[N]): Record<string, unknown>;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

function parseNames(value: string | undefined): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(value ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

/** The last 4 characters of a secret long enough that they say little about it (12 or more), else null. */
export const lastFour = (secret: string): string | null => (secret.length >= 12 ? secret.slice(-4) : null);

export const CODECS: { [N in ConnectionName]: Codec<N> } = {
  service: {
    split: (s) => ({ plain: { base_url: s.baseUrl }, secrets: { token: s.token } }),
    join: (plain, secrets) => ({ baseUrl: plain.base_url, token: String(secrets.token) }),
    view: (s) => ({ base_url: s.baseUrl, token_last4: lastFour(s.token) }),
  },
  appointment_crm: {
    split: (s): { plain: Plain; secrets: Secrets } =>
      isSalesforce(s)
        ? {
            plain: {
              kind: 'salesforce',
              login_url: s.loginUrl,
              instance_url: s.instanceUrl ?? '',
              client_id: s.clientId,
              preset: s.preset,
              names: JSON.stringify(s.names),
              sold_value: s.soldValue,
              pushes: s.pushes,
            },
            secrets: { client_secret: s.clientSecret, refresh_token: s.refreshToken },
          }
        : { plain: { base_url: s.baseUrl }, secrets: { api_key: s.apiKey } },
    // A row saved before the Salesforce adapter has no kind: the REST one.
    join: (plain, secrets) =>
      plain.kind === 'salesforce'
        ? {
            kind: 'salesforce',
            loginUrl: plain.login_url,
            instanceUrl: plain.instance_url || null,
            clientId: plain.client_id,
            clientSecret: String(secrets.client_secret),
            refreshToken: String(secrets.refresh_token),
            preset: plain.preset,
            names: parseNames(plain.names),
            soldValue: plain.sold_value || 'Sold',
            pushes: plain.pushes === 'crm-sync' ? 'crm-sync' : 'service',
          }
        : { baseUrl: plain.base_url, apiKey: String(secrets.api_key) },
    view: (s) =>
      isSalesforce(s)
        ? {
            kind: 'salesforce',
            login_url: s.loginUrl,
            instance_url: s.instanceUrl,
            client_id: s.clientId,
            client_secret_last4: lastFour(s.clientSecret),
            preset: s.preset,
            names: s.names,
            sold_value: s.soldValue,
            pushes: s.pushes,
          }
        : { base_url: s.baseUrl, api_key_last4: lastFour(s.apiKey) },
  },
  record_crm: {
    split: (s) => ({
      plain: { accounts_url: s.accountsUrl, api_domain: s.apiDomain, client_id: s.clientId },
      secrets: { client_secret: s.clientSecret, refresh_token: s.refreshToken },
    }),
    join: (plain, secrets) => ({
      accountsUrl: plain.accounts_url,
      apiDomain: plain.api_domain,
      clientId: plain.client_id,
      clientSecret: String(secrets.client_secret),
      refreshToken: String(secrets.refresh_token),
    }),
    view: (s) => ({ accounts_url: s.accountsUrl, api_domain: s.apiDomain, client_id: s.clientId, client_secret_last4: lastFour(s.clientSecret) }),
  },
  webhooks: {
    split: (s) => ({ plain: {}, secrets: { events: s.events, appointment_prompt: s.appointmentPrompt, record_prompt: s.recordPrompt } }),
    join: (_plain, secrets) => ({
      events: strings(secrets.events),
      appointmentPrompt: strings(secrets.appointment_prompt),
      recordPrompt: strings(secrets.record_prompt),
    }),
    view: (s) => ({
      secrets_last4: { events: s.events.map(lastFour), appointment_prompt: s.appointmentPrompt.map(lastFour), record_prompt: s.recordPrompt.map(lastFour) },
    }),
  },
};
