// @ts-check
/**
 * What the Connections screen says: its cards, the webhooks, the data centres, and the plain words for the daemon's
 * stable codes (a refused field's `code` in a 400's `errors`, a failed check's `code`). Words are picked by code,
 * never by reading the daemon's text, which is shown under them as it is.
 */
import { show } from './dom.js';

/** @typedef {'service' | 'appointment_crm' | 'record_crm' | 'webhooks'} ConnectionName */
/** @typedef {{ name: ConnectionName, path: string, title: string, what: string, env: string }} CardDef */

/** @type {CardDef[]} */
export const CARDS = [
  {
    name: 'service',
    path: 'service',
    title: 'Service',
    what: 'The drawing and proposal service: crm-sync reads projects, drawings and proposals from its API.',
    env: 'SERVICE_API_BASE_URL and SERVICE_API_TOKEN',
  },
  {
    name: 'appointment_crm',
    path: 'appointment-crm',
    title: 'Appointment CRM',
    what: 'Appointments get their drawings, proposal PDFs and status here. Leave it unset if you do not use one.',
    env: 'APPOINTMENT_CRM_BASE_URL and APPOINTMENT_CRM_API_KEY',
  },
  {
    name: 'record_crm',
    path: 'record-crm',
    title: 'Zoho CRM',
    what: 'Deals, quotes, leads and contacts get the proposal PDFs. Leave it unset if you do not use Zoho.',
    env: 'RECORD_CRM_API_DOMAIN, RECORD_CRM_CLIENT_ID, RECORD_CRM_CLIENT_SECRET and RECORD_CRM_REFRESH_TOKEN',
  },
  {
    name: 'webhooks',
    path: 'webhooks',
    title: 'Webhooks',
    what: 'The service tells crm-sync about new drawings and exports by calling these addresses, signed with a secret you both know.',
    env: 'WEBHOOK_SECRETS_EVENTS, WEBHOOK_SECRETS_APPOINTMENT_PROMPT and WEBHOOK_SECRETS_RECORD_PROMPT',
  },
];

/** @typedef {'events' | 'appointment_prompt' | 'record_prompt'} WebhookKey */
/** @type {Array<{ key: WebhookKey, title: string, short: string, what: string, required?: boolean }>} */
export const WEBHOOKS = [
  { key: 'events', title: 'Events', short: 'Events', what: 'new drawings, proposals and status changes', required: true },
  { key: 'appointment_prompt', title: 'Appointment CRM export prompt', short: 'Appointment prompt', what: 'the “send to the appointment CRM?” answer' },
  { key: 'record_prompt', title: 'Zoho CRM export prompt', short: 'Zoho prompt', what: 'the “attach to Zoho CRM?” answer' },
];

/** @type {Record<string, string>} */
export const REGIONS = { US: 'United States', EU: 'Europe', IN: 'India', AU: 'Australia', JP: 'Japan', CA: 'Canada', SA: 'Saudi Arabia', CN: 'China' };

/** @type {Record<string, string>} */
export const STATUS_LABELS = { connected: 'connected', degraded: 'degraded', not_configured: 'not configured' };

export const MIN_WEBHOOK_SECRET = 16;

/** @param {string} text */
export const upperFirst = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);

/** @param {string | null | undefined} last4 */
export const ending = (last4) => (last4 ? '…' + show(last4) : null);

/** @typedef {{ field: string, code: string, message?: string, limit?: number }} FieldError */

/** A field's own words, by field and code. @type {Record<string, string>} */
const FIELD_WORDS = {
  'base_url not_http_url': 'Enter the full address, starting with https (or http).',
  'base_url not_api_v1': 'The service’s API address ends in /v1.',
  'token required': 'Enter the API token.',
  'api_key required': 'Enter the API key.',
  'accounts_url not_http_url': 'Enter the accounts server’s full address, starting with https.',
  'client_id required': 'Enter the Client ID from Zoho’s API console.',
  'client_secret required': 'Enter the Client Secret from Zoho’s API console.',
};

/** Words of any field, by code alone. @type {Record<string, (e: FieldError) => string>} */
const ANY_FIELD_WORDS = {
  too_long: (e) => 'That is too long: at most ' + show(e.limit) + ' characters.',
  secret_too_short: () => 'A secret needs at least 16 characters.',
  kept_secret_unknown: () => 'A secret you kept was changed meanwhile: reload the page and try again.',
};

/**
 * A refused field in plain words (the daemon's text when no words fit).
 * @param {FieldError} e
 */
export function fieldWords(e) {
  const own = FIELD_WORDS[e.field + ' ' + e.code];
  if (own) return own;
  const any = ANY_FIELD_WORDS[e.code];
  return any ? any(e) : upperFirst(show(e.message));
}

/** Who a connection's words name, and its secret: ["the service", "token"]. @type {Record<ConnectionName, [string, string]>} */
export const WHO = {
  service: ['the service', 'token'],
  appointment_crm: ['the appointment CRM', 'API key'],
  record_crm: ['Zoho', 'access'],
  webhooks: ['crm-sync', 'secret'],
};

/**
 * What a failed check means, for someone who did not write crm-sync; null when its code has no words.
 * @param {string | null | undefined} code a check code of the daemon (docs/operations.md "Codes")
 * @param {ConnectionName} name
 * @returns {string | null}
 */
export function checkWords(code, name) {
  const [who, secret] = WHO[name];
  switch (code) {
    case 'secrets_unreadable':
      return 'The saved secrets cannot be read with the key crm-sync is running with.';
    case 'unauthorized':
      if (name === 'record_crm') {
        return 'Zoho no longer accepts crm-sync’s access (the consent was revoked, or the client changed in Zoho’s API console). Zoho CRM needs connecting again.';
      }
      return upperFirst(who) + ' refused the ' + secret + '. Check that you copied all of it, and that it has not been revoked or replaced.';
    case 'not_found':
      return 'Nothing that looks like ' + who + ' answered at that address. Check the address.';
    case 'rate_limited':
      return upperFirst(who) + ' is asking crm-sync to slow down. Wait a minute and try again.';
    case 'upstream_error':
      return upperFirst(who) + ' answered with an error of its own. Try again in a few minutes.';
    case 'timeout':
      return 'That address did not answer in time. Check it, and that crm-sync can reach it from where it runs.';
    case 'network':
      return 'crm-sync could not reach that address. Check it for typos, and that the server is up.';
    case 'not_the_api':
      return 'Something answered at that address, but not ' + who + '’s API. Check the address.';
    case 'not_configured':
      return 'Nothing is set yet.';
    case 'scope_missing':
      return 'Zoho has not given crm-sync every permission it needs (new features ask for more). Reconnect to grant them: Zoho asks you to accept again.';
    case 'no_crm_org':
      return 'The Zoho user who gave consent is not a user of any Zoho CRM organization. Connect again, signed in to Zoho as a user of your CRM.';
    default:
      return null;
  }
}

/**
 * A connection as `GET /api/connections` answers it (docs/operations.md "Connections").
 * @typedef {object} ConnectionView
 * @property {ConnectionName} name
 * @property {'environment' | 'console' | null} source
 * @property {'connected' | 'degraded' | 'not_configured'} status
 * @property {string | null} [code] why it is degraded or not configured
 * @property {string | null} [detail]
 * @property {string | null} [checked_at]
 * @property {string | null} [updated_at]
 * @property {string | null} [updated_by]
 * @property {boolean} [read_only]
 * @property {Record<string, any> | null} [settings] without secrets (their last 4 characters at most)
 */

/**
 * @typedef {object} ConnectionsAnswer
 * @property {ConnectionView[]} [items]
 * @property {{ ok: boolean, origin: string | null, path: string | null, problem: string | null }} [key]
 * @property {string} [public_url]
 * @property {boolean} [public_url_set]
 * @property {string} [redirect_uri]
 * @property {Record<string, string>} [webhook_addresses]
 * @property {Array<{ code: string, accounts_url: string }>} [data_centres]
 */
