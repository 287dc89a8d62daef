import type { AdminActor } from '../config/roles.js';

// A URL as it appears in text or in JSON text, where `/` may be escaped as `\/`: scheme, optional userinfo, the rest
// up to a character that ends a JSON string or a word.
const SLASH = String.raw`(?:\\?/)`;
const URL_IN_TEXT = new RegExp(String.raw`\b(https?:${SLASH}${SLASH})(?:[^\s"'<>/\\@?#]*@)?([^\s"'<>?#]*)(\?[^\s"'<>#]*)?`, 'gi');

/**
 * Text with the credentials of every http(s) URL in it taken out: userinfo becomes `…@` and a query string `?…`
 * (signed `pdf_url`s carry their signature there). Everything else, exact long ids among it, stays as it was.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_IN_TEXT, (match: string, scheme: string, rest: string, query: string | undefined) => {
    const hadUserinfo = match.length > scheme.length + rest.length + (query?.length ?? 0);
    return `${scheme}${hadUserinfo ? '…@' : ''}${rest}${query ? '?…' : ''}`;
  });
}

/** A parsed JSON value (or any plain data) with {@link redactUrlCredentials} applied to every string, keys kept. */
export function redactUrlCredentialsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactUrlCredentials(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactUrlCredentialsDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactUrlCredentialsDeep(item)])) as T;
  }
  return value;
}

/**
 * Whether the caller sees URLs in payloads and delivery bodies as stored. Only admins do: they hold the webhook and
 * connection secrets anyway and may need a signed URL's exact parameters (its expiry) to tell why a download failed.
 */
export const seesRawUrls = (actor: AdminActor): boolean => actor.role === 'admin';

/** What an admin route answers `actor`: as it is for admins, with URL credentials taken out for everyone else. */
export const viewFor = <T>(actor: AdminActor, view: T): T => (seesRawUrls(actor) ? view : redactUrlCredentialsDeep(view));

/** A URL's scheme, host and port, as shown to whoever may not read its path (`…` when it is no URL). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '…';
  }
}
