/**
 * The dot-segments of a URL path, `.` and `..` (also percent-encoded: `%2e`): a URL resolves them away (RFC 3986
 * §5.2.4), so an id `..` in `/appointments/{id}/sale` would make the request `PUT /sale`, another resource.
 */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Text that is not a dot-segment: for the ids of other systems, which go into their request paths. */
export const NOT_A_DOT_SEGMENT = /^(?!(?:\.|%2e){1,2}$)/i;

/** The first dot-segment of a request path (its query string left out), or undefined when it has none. */
export function dotSegmentOf(path: string): string | undefined {
  const pathPart = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/, 1)[0];
  return pathPart.split('/').find((segment) => DOT_SEGMENT.test(segment));
}
