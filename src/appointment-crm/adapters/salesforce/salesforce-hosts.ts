/**
 * Which hosts may be a Salesforce org's login server or instance. The token answer names the instance
 * (`instance_url`, OAuth 2.0 web server flow, https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm);
 * every call, with the org's access token, goes there, so a host that is not Salesforce's is refused unless
 * APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS is set (a test double, a proxy of one's own).
 * Production `login.salesforce.com`, sandboxes `test.salesforce.com`, My Domain `*.my.salesforce.com` (sandboxes
 * `*.sandbox.my.salesforce.com`), instances `*.salesforce.com`, Lightning and Visualforce hosts `*.force.com`.
 */
const SALESFORCE_SUFFIXES = ['.salesforce.com', '.force.com', '.cloudforce.com', '.salesforce.mil'];

export const PRODUCTION_LOGIN_URL = 'https://login.salesforce.com';

/** Why `url` may not be used as `what`, or null. */
export function salesforceHostProblem(what: string, url: string, allowCustom: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} is not a URL`;
  }
  if (allowCustom) return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? null : `${what} must be an http(s) URL`;
  if (parsed.protocol !== 'https:') return `${what} must be https`;
  const host = parsed.hostname.toLowerCase();
  if (!SALESFORCE_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return `${what} must be a Salesforce host (*.salesforce.com, *.force.com); ${host} is not (APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS=true allows others)`;
  return null;
}

export const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * Why a token answer's `scope` (space-separated, OAuth 2.0 web server flow, token response) cannot call the REST API,
 * or null: it needs `api` (or `full`, which includes it) (Salesforce Help, "OAuth Tokens and Scopes",
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_tokens_scopes.htm). An answer without `scope`
 * is not judged here: the first data call tells.
 */
export function apiScopeProblem(scope: unknown): string | null {
  if (typeof scope !== 'string') return null;
  const scopes = scope.split(/\s+/).filter(Boolean);
  if (scopes.includes('api') || scopes.includes('full')) return null;
  return `the consent gives no API access (scope "${scopes.join(' ').slice(0, 120)}" lacks "api"): add "Manage user data via APIs (api)" to the Connected App's OAuth scopes`;
}
