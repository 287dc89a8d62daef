/** The host rule lives in config/ (the saved connection is checked against it on every load, connections.service.ts). */
export { salesforceHostProblem } from '../../../config/salesforce-hosts.js';

export const PRODUCTION_LOGIN_URL = 'https://login.salesforce.com';

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
