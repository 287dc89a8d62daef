import { Logger } from '@nestjs/common';
import axios, { AxiosError, type AxiosInstance, type Method } from 'axios';
import type { Readable } from 'node:stream';
import type { RetryPolicy } from '../config/app-config.js';
import type { MetricsService } from '../observability/metrics.service.js';
import { checkDownloadUrl, guardedLookup, refusalIn, type AddressPolicy } from './address-guard.js';
import { meterCall } from './call-meter.js';
import { recordCall } from './call-trace.js';
import { parseExactJson, stringifyExactJson } from './exact-json.js';
import { excerptOf, failureForStatus, OutboundError, parseRetryAfter, type OutboundFailure } from './outbound-error.js';
import { dotSegmentOf } from './path-segments.js';
import { redactUrl } from './redact.js';
import { withRetries } from './retry.js';

export interface OutboundHttpOptions {
  /** Names the system in errors, logs and metrics: `service`, `appointment_crm`, `zoho`, `download`. */
  system: string;
  baseUrl?: string;
  timeoutMs: number;
  /** For requests with a one-shot body (an upload): how long the whole request may take. Defaults to `timeoutMs`. */
  uploadTimeoutMs?: number;
  retry: RetryPolicy;
  /** Headers that authenticate a call; asked for on every try, so a refreshed token is picked up. */
  authorize?: () => Promise<Record<string, string>> | Record<string, string>;
  /** Wraps every try, e.g. a rate cap. */
  throttle?: <T>(call: () => Promise<T>) => Promise<T>;
  metrics?: MetricsService;
  /** For URLs someone outside chose (downloads): where they may go, checked on every connection and redirect. */
  addressPolicy?: AddressPolicy;
  /** The largest JSON answer read (HTTP_MAX_JSON_BYTES); a larger one fails as `invalid_response`. Unset: no cap. */
  maxJsonBytes?: number;
}

/**
 * A client of a system reached with a bearer credential, under the deployment's time-outs and retry policy;
 * `attempts` overrides the policy's tries (1 for a console check that must answer quickly).
 */
export function bearerHttp(
  system: string,
  target: { baseUrl: string; bearer: string },
  http: { timeoutMs: number; uploadTimeoutMs: number; retry: RetryPolicy; maxJsonBytes?: number },
  extra: { metrics?: MetricsService; throttle?: OutboundHttpOptions['throttle']; attempts?: number } = {},
): OutboundHttp {
  return new OutboundHttp({
    system,
    baseUrl: target.baseUrl,
    timeoutMs: http.timeoutMs,
    maxJsonBytes: http.maxJsonBytes,
    uploadTimeoutMs: http.uploadTimeoutMs,
    retry: extra.attempts ? { ...http.retry, attempts: extra.attempts } : http.retry,
    authorize: () => ({ authorization: `Bearer ${target.bearer}` }),
    throttle: extra.throttle,
    metrics: extra.metrics,
  });
}

export interface OutboundRequest {
  /** A label for errors and logs, e.g. `P8 GET /projects/:id/drawings`. */
  endpoint: string;
  method: Method;
  /** Relative to the base URL, or absolute. */
  path: string;
  /**
   * The path as a template for the action's call trace (`/appointments/:id/files`): no ids, no query string. When
   * unset it is read from `endpoint`, or else from `path` with id-like segments replaced (see call-trace.ts).
   */
  pathTemplate?: string;
  params?: Record<string, string | number | undefined>;
  /** Sent as JSON, ids written exactly (see jsonInteger). */
  json?: unknown;
  /** A body that can only be sent once (a stream or multipart form); calls with one are not retried here. */
  body?: unknown;
  headers?: Record<string, string>;
  responseType?: 'json' | 'stream';
  /** Reads a failure from an answer whose status says success (Zoho answers some errors with 200). */
  failureOf?: (status: number, data: unknown) => { failure: OutboundFailure; message: string } | null;
  /** Statuses that are not failures for this call (e.g. 404 read as "absent"). */
  acceptStatus?: number[];
  retry?: boolean;
  /** A write whose answer is not read: a 2xx whose body is not JSON still means it was done. */
  answerUnused?: boolean;
  /** What one try costs against the system's allowance, where not one call (a Zoho COQL query, by its LIMIT). */
  cost?: number;
  /** Aborts the call (a download's overall deadline). */
  signal?: AbortSignal;
}

export interface OutboundResponse<T> {
  status: number;
  data: T;
  headers: Record<string, unknown>;
}

/**
 * One configured HTTP client per external system: base URL, time-out and auth set once; exact JSON ids; typed
 * errors; retries with backoff for transient failures; every call logged (method, path, status, duration; no
 * query strings, no headers) and counted.
 */
export class OutboundHttp {
  private readonly logger: Logger;
  private readonly axios: AxiosInstance;

  constructor(private readonly options: OutboundHttpOptions) {
    this.logger = new Logger(`http:${options.system}`);
    const policy = options.addressPolicy;
    this.axios = axios.create({
      ...(policy && {
        lookup: guardedLookup(policy),
        beforeRedirect: (next: { protocol?: string; hostname?: string; host?: string }) =>
          checkDownloadUrl(`${next.protocol ?? 'http:'}//${next.hostname ?? next.host ?? ''}/`, policy),
        // A proxy from HTTP(S)_PROXY would resolve and connect to the target itself: the guarded lookup would check
        // the proxy's address, and the download could reach whatever the proxy reaches.
        proxy: false as const,
      }),
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      validateStatus: () => true,
      maxRedirects: this.redirectsFollowed(false),
      transitional: { clarifyTimeoutError: true },
      // Ids must be parsed exactly, so JSON is read as text and parsed here.
      transformResponse: [(data: unknown) => data],
      maxBodyLength: Infinity,
      maxContentLength: Infinity,
    });
  }

  get system(): string {
    return this.options.system;
  }

  /**
   * Only downloads follow redirects (at most 3, each checked by the address guard): a file store answers a signed
   * URL with one. An API client follows none: its credentials would go to wherever a redirect points (axios keeps
   * custom headers across hosts), and the APIs it speaks answer in place, so a 3xx fails the call naming the status.
   * Following a redirect also keeps every byte sent so it can be replayed: an upload would sit in memory whole.
   */
  private redirectsFollowed(upload: boolean): number {
    return this.options.addressPolicy && !upload ? 3 : 0;
  }

  async request<T = unknown>(req: OutboundRequest): Promise<OutboundResponse<T>> {
    // An id `.` or `..` would turn the path into another resource's (PUT /appointments/../sale is PUT /sale).
    const dotSegment = dotSegmentOf(req.path);
    if (dotSegment !== undefined) {
      throw new OutboundError(this.options.system, req.endpoint, 'rejected', null, `refused: an id in the path is the dot-segment "${dotSegment}"`);
    }
    const retryable = req.retry !== false && req.body === undefined;
    const policy = retryable ? this.options.retry : { ...this.options.retry, attempts: 1 };
    return withRetries(() => this.once<T>(req), policy);
  }

  private async once<T>(req: OutboundRequest): Promise<OutboundResponse<T>> {
    const call = () => this.send<T>(req);
    return this.options.throttle ? this.options.throttle(call) : call();
  }

  private async send<T>(req: OutboundRequest): Promise<OutboundResponse<T>> {
    const started = process.hrtime.bigint();
    const startedAt = new Date();
    let traceStatus: number | null = null;
    let traceError: string | null = null;
    const url = this.describeUrl(req.path);
    const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}) };
    Object.assign(headers, (await this.options.authorize?.()) ?? {});
    let data: unknown = req.body;
    if (req.json !== undefined) {
      data = stringifyExactJson(req.json);
      headers['content-type'] = 'application/json';
    }
    const stream = req.responseType === 'stream';
    const upload = req.body !== undefined;
    const timeoutMs = upload ? (this.options.uploadTimeoutMs ?? this.options.timeoutMs) : this.options.timeoutMs;
    let statusLabel = 'error';
    try {
      if (this.options.addressPolicy) checkDownloadUrl(this.absoluteUrl(req.path), this.options.addressPolicy);
      meterCall(this.options.system, req.cost ?? 1);
      const response = await this.axios.request({
        method: req.method,
        url: req.path,
        params: req.params,
        data,
        headers,
        responseType: stream ? 'stream' : 'text',
        timeout: timeoutMs,
        maxRedirects: this.redirectsFollowed(upload),
        // A whole JSON answer must arrive within the time-out; a stream only has to keep moving (axios' idle timer).
        signal: stream ? req.signal : anySignal(AbortSignal.timeout(timeoutMs + 1_000), req.signal),
        // A stream (a PDF) has its own cap; a JSON answer is held whole in memory, so it is capped here.
        maxContentLength: stream ? -1 : (this.options.maxJsonBytes ?? -1),
      });
      statusLabel = String(response.status);
      traceStatus = response.status;
      const ok = (response.status >= 200 && response.status < 300) || req.acceptStatus?.includes(response.status);
      if (!ok) {
        const body = stream ? await readSome(response.data as Readable) : response.data;
        throw new OutboundError(
          this.options.system,
          req.endpoint,
          failureForStatus(response.status),
          response.status,
          excerptOf(body),
          parseRetryAfter(response.headers['retry-after']),
        );
      }
      const parsed = stream ? response.data : req.answerUnused ? null : this.parseBody(req, response.status, response.data as string);
      const declared = req.failureOf?.(response.status, parsed);
      if (declared) {
        throw new OutboundError(this.options.system, req.endpoint, declared.failure, response.status, declared.message);
      }
      this.logger.debug(`${req.method} ${url} ${response.status} ${elapsedMs(started)}ms`);
      return { status: response.status, data: parsed as T, headers: response.headers as Record<string, unknown> };
    } catch (err) {
      const error = this.toOutboundError(req, err, timeoutMs, elapsedMs(started));
      if (error.status === null) statusLabel = error.failure;
      traceStatus = error.status;
      traceError = error.excerpt ? `${error.failure}: ${error.excerpt}` : error.failure;
      this.logger.warn(`${req.method} ${url} ${error.status ?? error.failure} ${elapsedMs(started)}ms: ${error.excerpt}`);
      throw error;
    } finally {
      const call = { system: this.options.system, method: req.method, url: req.path, endpoint: req.endpoint, pathTemplate: req.pathTemplate };
      recordCall(call, traceStatus, elapsedMs(started), traceError, startedAt);
      this.options.metrics?.outboundRequests.inc({ system: this.options.system, status: statusLabel });
      this.options.metrics?.outboundDuration.observe({ system: this.options.system }, elapsedMs(started) / 1000);
    }
  }

  private parseBody(req: OutboundRequest, status: number, text: string): unknown {
    if (text === undefined || text === null || text === '') return null;
    try {
      return parseExactJson(text);
    } catch {
      throw new OutboundError(this.options.system, req.endpoint, 'invalid_response', status, `not JSON: ${excerptOf(text, 80)}`);
    }
  }

  private toOutboundError(req: OutboundRequest, err: unknown, timeoutMs: number, unansweredMs: number): OutboundError {
    if (err instanceof OutboundError) return err;
    const refusal = refusalIn(err);
    if (refusal) return new OutboundError(this.options.system, req.endpoint, 'rejected', null, refusal.message);
    const e = err as AxiosError & { name?: string };
    const code = e.code ?? '';
    if (/maxContentLength size of/.test(e.message ?? '')) {
      const cap = this.options.maxJsonBytes ?? 0;
      return new OutboundError(this.options.system, req.endpoint, 'invalid_response', null, `answer larger than ${cap} bytes (HTTP_MAX_JSON_BYTES)`);
    }
    // A write left unanswered may still be applied by the other side, late. Its next try waits as long as this one
    // waited, so that what the caller looks for first (an attachment of that name, say) has had time to land.
    const settleMs = isWrite(req.method) ? unansweredMs : undefined;
    if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'ERR_CANCELED') {
      return new OutboundError(this.options.system, req.endpoint, 'timeout', null, `no answer within ${timeoutMs} ms`, settleMs);
    }
    const lostMidRequest = LOST_MID_REQUEST.has(code) || /socket hang up/i.test(e.message ?? '');
    return new OutboundError(
      this.options.system,
      req.endpoint,
      'network',
      null,
      code || (e.message ?? 'connection failed'),
      lostMidRequest ? settleMs : undefined,
    );
  }

  private describeUrl(path: string): string {
    return redactUrl(this.absoluteUrl(path));
  }

  private absoluteUrl(path: string): string {
    return /^https?:\/\//i.test(path) ? path : `${this.options.baseUrl ?? ''}${path}`;
  }
}

/** Connection errors that can come after the request reached the other side (unlike a refused connection). */
const LOST_MID_REQUEST: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

function isWrite(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

function anySignal(signal: AbortSignal, extra: AbortSignal | undefined): AbortSignal {
  return extra ? AbortSignal.any([signal, extra]) : signal;
}

function elapsedMs(started: bigint): number {
  return Number((process.hrtime.bigint() - started) / 1_000_000n);
}

/** Reads at most a few KiB of an error answer that arrived as a stream, then lets the rest go. */
async function readSome(stream: Readable, max = 4096): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= max) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).toString('utf8');
}
