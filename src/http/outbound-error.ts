import { redactSecrets } from './redact.js';

/**
 * Why an outbound call failed. `transient` failures (429, 408, 409, 5xx, time-outs, connection errors) are worth
 * retrying; the others (400, 401, 403, 404, ...) fail at once.
 */
export type OutboundFailure =
  'rate_limited' | 'unavailable' | 'timeout' | 'network' | 'not_connected' | 'not_found' | 'unauthorized' | 'rejected' | 'invalid_response';

/** `not_connected` is retried too: an admin connecting the system from the console is what it waits for. */
const TRANSIENT: ReadonlySet<OutboundFailure> = new Set(['rate_limited', 'unavailable', 'timeout', 'network', 'not_connected']);

/** A failed call to the service or a CRM: which system, which endpoint, what status, and a short excerpt of the answer. */
export class OutboundError extends Error {
  readonly transient: boolean;

  constructor(
    readonly system: string,
    readonly endpoint: string,
    readonly failure: OutboundFailure,
    readonly status: number | null,
    readonly excerpt: string,
    /**
     * How long to wait before the next try, in ms: what the other side asked (Retry-After), or, for a write left
     * unanswered, as long as it went unanswered (it may yet be applied).
     */
    readonly retryAfterMs?: number,
  ) {
    super(`${system} ${endpoint} failed: ${status ? `HTTP ${status}` : failure}${excerpt ? ` ${excerpt}` : ''}`.slice(0, 600));
    this.name = 'OutboundError';
    this.transient = TRANSIENT.has(failure);
  }
}

/** A call to a system whose connection is not set, in the environment or the console. */
export function notConnected(system: string, endpoint: string, label: string): OutboundError {
  return new OutboundError(system, endpoint, 'not_connected', null, `${label} is not connected: connect it on the console's Connections screen`);
}

export function failureForStatus(status: number): OutboundFailure {
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 409 || status >= 500) return status === 408 ? 'timeout' : 'unavailable';
  if (status === 404) return 'not_found';
  if (status === 401 || status === 403) return 'unauthorized';
  return 'rejected';
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: unknown, now = Date.now()): number | undefined {
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A short, single-line excerpt of an answer for logs and errors, credentials it may echo taken out (redact.ts). */
export function excerptOf(body: unknown, max = 200): string {
  if (body === undefined || body === null || body === '') return '';
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : JSON.stringify(body);
  const flat = redactSecrets(text.replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
