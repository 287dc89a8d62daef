import { ZOHO_DATA_CENTRES } from './zoho-data-centres.js';

/**
 * Where crm-sync may send Zoho's client secret and access tokens: Zoho's own hosts, the addresses the environment
 * sets (RECORD_CRM_ACCOUNTS_URL, RECORD_CRM_API_DOMAIN), or anything when `allowCustom`
 * (RECORD_CRM_ALLOW_CUSTOM_DOMAINS=true: simulators, a proxy on the admin's own network).
 */
export interface ZohoDomainRule {
  allowCustom: boolean;
  accountsUrl: string | null;
  apiDomain: string | null;
}

/** Zoho's hosts only. */
export const ZOHO_ONLY: ZohoDomainRule = { allowCustom: false, accountsUrl: null, apiDomain: null };

type Field = 'accounts_url' | 'api_domain';

/** Why `url` may not be this field (naming the field), or null when it may. */
export function zohoDomainProblem(field: Field, url: string, rule: ZohoDomainRule): string | null {
  if (rule.allowCustom) return null;
  const fromEnvironment = field === 'accounts_url' ? rule.accountsUrl : rule.apiDomain;
  if (fromEnvironment !== null && sameAddress(url, fromEnvironment)) return null;
  const origin = originOf(url);
  const known: string[] = ZOHO_DATA_CENTRES.map((dc) => (field === 'accounts_url' ? dc.accountsUrl : dc.apiDomain));
  if (origin !== null && known.includes(origin)) return null;
  const examples = field === 'accounts_url' ? 'https://accounts.zoho.com, https://accounts.zoho.eu' : 'https://www.zohoapis.com, https://www.zohoapis.eu';
  return `${field} must be one of Zoho's data centres over https (${examples}, ...), not ${url.slice(0, 200)}; set RECORD_CRM_ALLOW_CUSTOM_DOMAINS=true for a test double or a proxy`;
}

/** The origin of an https address that is nothing but an origin (no credentials, path, query or fragment), else null. */
function originOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password || parsed.search || parsed.hash) return null;
  if (parsed.pathname !== '/') return null;
  return parsed.origin;
}

function sameAddress(a: string, b: string): boolean {
  return withoutTrailingSlashes(a) === withoutTrailingSlashes(b);
}

/** `/\/+$/` would take quadratic time on an answer of many slashes followed by something else. */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}
