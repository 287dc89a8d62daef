import { OutboundError } from '../../http/outbound-error.js';
import { optionalIdString } from '../../http/exact-json.js';
import type { RecordCrmAccount } from '../record-crm.js';

export const ORG_ENDPOINT = 'GET /org';
export const CURRENT_USER_ENDPOINT = 'GET /users?type=CurrentUser';

export const NO_CRM_ORGANIZATION = 'the Zoho user who gave consent belongs to no Zoho CRM organization: connect again, signed in to Zoho as a user of your CRM';

/** One GET of Zoho's API with a token: the answer's status and its body (null when empty). */
export type ZohoGet = (endpoint: string, path: string, params?: Record<string, string>) => Promise<{ status: number; data: unknown }>;

const objectsOf = (data: unknown, key: string): Array<Record<string, unknown>> => {
  const list = data && typeof data === 'object' ? (data as Record<string, unknown>)[key] : undefined;
  return Array.isArray(list) ? list.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object') : [];
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * Whose CRM a token reaches: the organization (GET /org, crm-oas v8 org.yaml, scope ZohoCRM.org.READ) and the user
 * who consented (GET /users?type=CurrentUser, users.yaml, ZohoCRM.users.READ). Null when the token reaches no CRM
 * organization: an empty `org`, or no answer at all (204).
 */
export async function readZohoAccount(get: ZohoGet): Promise<RecordCrmAccount | null> {
  const org = objectsOf((await get(ORG_ENDPOINT, '/org')).data, 'org')[0];
  if (!org) return null;
  let orgId: string | null;
  try {
    orgId = optionalIdString(org.id);
  } catch {
    throw new OutboundError('zoho', ORG_ENDPOINT, 'invalid_response', 200, 'answer has an invalid organization id');
  }
  if (!orgId) return null;
  const user = objectsOf((await get(CURRENT_USER_ENDPOINT, '/users', { type: 'CurrentUser' })).data, 'users')[0] ?? {};
  return {
    orgId,
    orgName: text(org.company_name) ?? text(org.alias) ?? text(org.domain_name) ?? 'unnamed organization',
    userEmail: text(user.email),
    userName: text(user.full_name),
  };
}

/** "Acme Roofing (org 12345), connected as admin@acme.example", as the console's card shows it. */
export function describeAccount(account: RecordCrmAccount): string {
  const who = account.userEmail ?? account.userName;
  return `${account.orgName} (org ${account.orgId})${who ? `, connected as ${who}` : ''}`;
}
