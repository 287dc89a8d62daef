/** A URL fit for logs: origin and path only, since query strings of signed download addresses carry credentials. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
