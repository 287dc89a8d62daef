import { AsyncLocalStorage } from 'node:async_hooks';

/** One outbound HTTP call as an admin sees it: never a secret, a query string or a body. */
export interface TracedCall {
  /** Order within the run, from 1. */
  seq: number;
  system: string;
  method: string;
  /** A template such as `/appointments/:id/files`; a PDF download is `(pdf download) <host>`. */
  path: string;
  /** The answer's status; null when there was none (time-out, network). */
  status: number | null;
  durationMs: number;
  /** A short reason when the call failed. */
  error: string | null;
  /** When the call started. */
  at: Date;
}

/** Most calls kept per run; a run past it keeps its first calls and counts the rest. */
export const MAX_CALLS_PER_RUN = 200;
const ERROR_MAX = 300;

/** The calls of one run of an action, collected while its handler runs. */
export class CallTrace {
  readonly calls: TracedCall[] = [];
  /** Calls made past MAX_CALLS_PER_RUN, not kept. */
  dropped = 0;

  add(call: Omit<TracedCall, 'seq'>): void {
    if (this.calls.length >= MAX_CALLS_PER_RUN) {
      this.dropped++;
      return;
    }
    this.calls.push({ ...call, seq: this.calls.length + 1 });
  }
}

const storage = new AsyncLocalStorage<CallTrace>();

/** Runs `work` with `trace` collecting every outbound call made inside it (the action worker opens one per run). */
export function withCallTrace<T>(trace: CallTrace, work: () => Promise<T>): Promise<T> {
  return storage.run(trace, work);
}

/** The trace of the running action, if any: calls made outside an action (routing, health checks) are not kept. */
export function currentCallTrace(): CallTrace | undefined {
  return storage.getStore();
}

/** What the outbound layer knows of a call when it records it. */
export interface CallDescription {
  system: string;
  method: string;
  /** The path or absolute URL requested (query strings allowed here; they are dropped). */
  url: string;
  /** The client's label, e.g. `P8 GET /projects/:id/drawings` or `GET /{module}/{id}/Attachments`. */
  endpoint?: string;
  /** An explicit template set by the client; wins over everything else. */
  pathTemplate?: string;
}

/** Appends a call to the running action's trace; does nothing outside an action. Never throws. */
export function recordCall(call: CallDescription, status: number | null, durationMs: number, error: string | null, at: Date): void {
  const trace = storage.getStore();
  if (!trace) return;
  try {
    trace.add({
      system: call.system,
      method: call.method.toUpperCase(),
      path: pathTemplateOf(call),
      status,
      durationMs: Math.max(0, Math.round(durationMs)),
      error: error === null ? null : redactText(error),
      at,
    });
  } catch {
    // A trace must never break the call it describes.
  }
}

/**
 * The path of a call as a template. An explicit `pathTemplate` wins; a PDF download (system `download`) is shown
 * by its host only; otherwise the client's endpoint label (`GET /appointments/:id/files`) is laid over the end of
 * the real path, so a prefix the label leaves out stays (`/crm/v8/:module/:id/Attachments`); failing that, id-like
 * segments of the real path become `:id`.
 */
export function pathTemplateOf(call: CallDescription): string {
  if (call.pathTemplate) return stripQuery(call.pathTemplate);
  const { host, pathname } = splitUrl(call.url);
  if (call.system === 'download') return `(pdf download) ${host ?? '(relative)'}`;
  const real = pathname.split('/').filter((s) => s !== '');
  const label = labelSegments(call.endpoint, call.method);
  if (label && label.length <= real.length) {
    const offset = real.length - label.length;
    const fits = label.every((seg, i) => isPlaceholder(seg) || seg === safeDecode(real[offset + i]));
    if (fits) {
      const prefix = real.slice(0, offset).map(templateSegment);
      return '/' + [...prefix, ...label.map((s) => (isPlaceholder(s) ? placeholderName(s) : s))].join('/');
    }
  }
  return real.length === 0 ? '/' : '/' + real.map(templateSegment).join('/');
}

/** The segments of a label such as `P8 GET /projects/:id/drawings` or `GET /{module}/{id}/Notes`; null if it is not one. */
function labelSegments(endpoint: string | undefined, method: string): string[] | null {
  if (!endpoint) return null;
  const match = /^(?:[A-Z]\d+\s+)?([A-Z]+)\s+(\/\S*)$/.exec(endpoint.trim());
  if (!match || match[1] !== method.toUpperCase()) return null;
  return stripQuery(match[2])
    .split('/')
    .filter((s) => s !== '');
}

const isPlaceholder = (seg: string): boolean => /^:[A-Za-z_]\w*$/.test(seg) || /^\{[A-Za-z_]\w*\}$/.test(seg);
const placeholderName = (seg: string): string => (seg.startsWith(':') ? seg : `:${seg.slice(1, -1)}`);

/** A literal segment stays (`projects`, `line_items`, `v8`, `Attachments`); anything that may be an id becomes `:id`. */
export function templateSegment(segment: string): string {
  const s = safeDecode(segment);
  if (/^v\d{1,2}$/i.test(s)) return s; // an API version
  if (/^[A-Za-z][A-Za-z_-]{0,39}$/.test(s) && !/^[a-f]{16,}$/i.test(s)) return s;
  return ':id';
}

function splitUrl(url: string): { host: string | null; pathname: string } {
  if (/^https?:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      return { host: parsed.host, pathname: parsed.pathname };
    } catch {
      return { host: null, pathname: '/' };
    }
  }
  return { host: null, pathname: stripQuery(url) };
}

const stripQuery = (path: string): string => path.replace(/[?#].*$/s, '');

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A failure's reason fit to store: one line, short, without query strings of URLs (signed download addresses
 * carry credentials there) or anything that looks like a credential.
 */
export function redactText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/(https?:\/\/[^\s?#"'<>]*)[?#][^\s"'<>]*/gi, '$1?…')
    .replace(/\b(Bearer|Zoho-oauthtoken|Basic)\s+[^\s,;"']+/gi, '$1 …')
    .replace(/\b(access_token|refresh_token|client_secret|client_id|api_key|apikey|token|code|signature|sig|X-Amz-[A-Za-z-]+)=([^\s&"']+)/gi, '$1=…')
    .replace(/("(?:access_token|refresh_token|client_secret|api_key|token)"\s*:\s*)"[^"]*"/gi, '$1"…"')
    .replace(/\b1000\.[0-9a-f]{16,}\.[0-9a-f]{16,}\b/gi, '…')
    .trim()
    .slice(0, ERROR_MAX);
}
