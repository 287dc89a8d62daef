/**
 * Which hosts may be a Salesforce org's login server or instance: the client secret, the refresh token and every
 * access token go there. The token answer names the instance (`instance_url`, OAuth 2.0 web server flow,
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm), and since enhanced domains
 * every org's instance is its My Domain (Salesforce Help, "My Domain URL Formats",
 * https://help.salesforce.com/s/articleView?id=products.domain_name_app_url_changes.htm&type=5): production
 * `MyDomainName.my.salesforce.com`, sandboxes `MyDomainName--SandboxName.sandbox.my.salesforce.com`, and the
 * partitioned `.develop.`, `.scratch.`, `.trailblaze.`, `.demo.`, `.patch.`, `.free.` forms, all under
 * `.my.salesforce.com` (Government Cloud Plus: `.my.salesforce.mil`). Logins go to `login.salesforce.com`,
 * `test.salesforce.com` (sandboxes) or the My Domain. Any other host, even of Salesforce's (`*.force.com` serves
 * Experience Cloud sites and Visualforce pages that an org's users can author), and any URL that is more than an
 * https origin (user info, a port, a path, a query), is refused unless APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS is set
 * (a test double, a proxy of one's own).
 */
const LOGIN_HOSTS = new Set(['login.salesforce.com', 'test.salesforce.com']);
const MY_DOMAIN_SUFFIXES = ['.my.salesforce.com', '.my.salesforce.mil'];

/** Why `url` may not be used as `what` (naming it), or null. */
export function salesforceHostProblem(what: string, url: string, allowCustom: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} is not a URL`;
  }
  if (allowCustom) return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? null : `${what} must be an http(s) URL`;
  if (parsed.protocol !== 'https:') return `${what} must be https`;
  if (parsed.username || parsed.password || parsed.port || parsed.pathname !== '/' || parsed.search || parsed.hash || /[?#]$/.test(url)) {
    return `${what} must be an https origin alone (no user info, port, path, query or fragment)`;
  }
  const host = parsed.hostname.toLowerCase();
  const myDomain = MY_DOMAIN_SUFFIXES.find((suffix) => host.endsWith(suffix));
  if (LOGIN_HOSTS.has(host) || (myDomain && host.length > myDomain.length)) return null;
  return `${what} must be login.salesforce.com, test.salesforce.com or the org's My Domain (*.my.salesforce.com); ${host} is not (APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS=true allows others)`;
}
