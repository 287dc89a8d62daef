/** A URL fit for logs: origin and path only, since query strings of signed download addresses carry credentials. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}

const URL_QUERY = /\b(https?:\/\/[^\s"'<>?#]+)\?[^\s"'<>#]*/gi;
const AUTHORIZATION_VALUE = /\b(Bearer|Basic|Zoho-oauthtoken)\s+[A-Za-z0-9._~+/=-]+/gi;
const SECRET_FIELD =
  /(["']?(?:access_token|refresh_token|client_secret|id_token|token|api_key|apikey|password|signature|authorization)["']?\s*[:=]\s*["']?)[^"'&\s,}]+/gi;

/**
 * Text quoted from an answer (an error excerpt) with what would be a credential taken out: query strings of URLs
 * (signed download addresses), Authorization values and token-like fields. Such excerpts reach the sync log, its
 * viewers and the alert webhook, and an answer may echo what it was sent.
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_QUERY, '$1?…').replace(AUTHORIZATION_VALUE, '$1 …').replace(SECRET_FIELD, '$1…');
}
