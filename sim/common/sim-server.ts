import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseLossless, stringify as stringifyLossless, LosslessNumber, isSafeNumber } from 'lossless-json';

/** One request as the simulator received it, kept for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  at: number;
}

/** What a route handler answers. `body` is JSON-encoded unless it is a Buffer or a string with a content type. */
export interface SimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the body as these raw bytes (e.g. a PDF); wins over `body`. */
  raw?: Buffer;
}

export interface SimRequest extends RecordedRequest {
  /** Route parameters captured by `:name` segments. */
  params: Record<string, string>;
  /** The body parsed as JSON with big integers kept exact (see parseExactJson); undefined when not JSON. */
  json: unknown;
}

export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

/**
 * A fault the simulator injects into the next `times` matching requests instead of handling them.
 * `status` 429 with `retryAfterSeconds` sends a Retry-After header; `delayMs` alone delays a normal answer;
 * `dropConnection` destroys the socket without answering. `afterHandling` lets the request be handled first (its
 * effect kept) and then loses or replaces the answer: a write the other side applied whose answer never arrived;
 * with `delayMs` alone it holds the real answer that long (a crash can be placed between the write and its answer).
 * `until` holds the request (with `afterHandling`, its answer) until the promise settles: a test orders what happens
 * meanwhile by conditions, not by time.
 */
export interface Fault {
  method?: string;
  path?: string | RegExp;
  times: number;
  status?: number;
  body?: unknown;
  /** Sent as is (a string `body` then goes out unquoted): e.g. a 200 `text/plain` answer. */
  contentType?: string;
  retryAfterSeconds?: number;
  delayMs?: number;
  dropConnection?: boolean;
  afterHandling?: boolean;
  until?: Promise<unknown>;
  /** Strikes only the requests this accepts (a query parameter's value, say). */
  when?: (req: RecordedRequest) => boolean;
}

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: SimHandler;
}

/** Parses JSON keeping integers beyond 2^53 as exact decimal strings; other numbers stay numbers. */
export function parseExactJson(text: string): unknown {
  return parseLossless(text, undefined, (value: string) => (isSafeNumber(value) ? Number(value) : value));
}

/** Marks an id so that `toJson` writes it as a bare JSON number, digit for digit (as the real service sometimes does). */
export function bareNumber(digits: string): LosslessNumber {
  return new LosslessNumber(digits);
}

export function toJson(value: unknown): string {
  return stringifyLossless(value) ?? 'null';
}

/**
 * A real HTTP server on 127.0.0.1 with routing, a request log, added latency and fault injection.
 * Simulators extend it and register routes in their constructor.
 */
export class SimServer {
  readonly requests: RecordedRequest[] = [];
  /** Every injected fault a request met, in order: what was injected and when it struck. */
  readonly faultsHit: Array<{ fault: Fault; method: string; path: string; body: Buffer; at: number }> = [];
  /** Added to every answer, in milliseconds. */
  latencyMs = 0;
  private readonly routes: Route[] = [];
  private faults: Fault[] = [];
  private server?: Server;
  private baseUrl?: string;
  /** Answers held back by a delay (`latencyMs`, a fault's `delayMs`): ended by `stop`, so no timer outlives it. */
  private readonly held = new Set<() => void>();

  constructor(private readonly name: string) {}

  get url(): string {
    if (!this.baseUrl) throw new Error(`${this.name} simulator is not started`);
    return this.baseUrl;
  }

  route(method: string, path: string, handler: SimHandler): void {
    const keys: string[] = [];
    const pattern = new RegExp(
      '^' +
        path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, key: string) => {
          keys.push(key);
          return '([^/]+)';
        }) +
        '$',
    );
    this.routes.push({ method: method.toUpperCase(), pattern, keys, handler });
  }

  injectFault(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  clearFaults(): void {
    this.faults = [];
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method.toUpperCase() && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.dispatch(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const { port: actual } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${actual}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const server = this.server;
    this.server = undefined;
    server.closeAllConnections();
    for (const end of [...this.held]) end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits `ms`; false when the simulator was stopped meanwhile (nothing is to be answered or done then). */
  private hold(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const end = (answered: boolean) => {
        clearTimeout(timer);
        this.held.delete(stopped);
        resolve(answered);
      };
      const stopped = () => end(false);
      const timer = setTimeout(() => end(true), ms);
      this.held.add(stopped);
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', 'http://sim');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      this.requests.push(recorded);

      const fault = this.takeFault(recorded);
      const handled = fault?.afterHandling ? await this.handle(recorded) : undefined;
      const delay = this.latencyMs + (fault?.delayMs ?? 0);
      if (delay > 0 && !(await this.hold(delay))) return;
      if (fault?.until) await fault.until.catch(() => undefined);
      if (fault?.dropConnection) {
        req.socket.destroy();
        return;
      }
      if (fault?.status) {
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
        if (fault.contentType) headers['content-type'] = fault.contentType;
        return this.send(res, { status: fault.status, body: fault.body ?? { error: `injected ${fault.status}` }, headers });
      }

      const response = handled ?? (await this.handle(recorded));
      this.send(res, response);
    } catch (err) {
      this.send(res, { status: 500, body: { error: `simulator error: ${(err as Error).message}` } });
    }
  }

  private async handle(recorded: RecordedRequest): Promise<SimResponse> {
    let methodMismatch = false;
    for (const route of this.routes) {
      const match = route.pattern.exec(recorded.path);
      if (!match) continue;
      if (route.method !== recorded.method) {
        methodMismatch = true;
        continue;
      }
      const params: Record<string, string> = {};
      route.keys.forEach((key, i) => (params[key] = decodeURIComponent(match[i + 1])));
      let json: unknown;
      const type = String(recorded.headers['content-type'] ?? '');
      if (type.includes('json') && recorded.body.length > 0) {
        try {
          json = parseExactJson(recorded.body.toString('utf8'));
        } catch {
          return { status: 400, body: { error: 'body is not JSON' } };
        }
      }
      return route.handler({ ...recorded, params, json });
    }
    return methodMismatch ? { status: 405, body: { error: 'method not allowed' } } : { status: 404, body: { error: 'not found' } };
  }

  private takeFault(req: RecordedRequest): Fault | undefined {
    const index = this.faults.findIndex(
      (f) =>
        f.times > 0 &&
        (!f.method || f.method.toUpperCase() === req.method) &&
        (!f.path || (typeof f.path === 'string' ? f.path === req.path : f.path.test(req.path))) &&
        (!f.when || f.when(req)),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index];
    this.faultsHit.push({ fault, method: req.method, path: req.path, body: req.body, at: req.at });
    fault.times -= 1;
    if (fault.times === 0) this.faults.splice(index, 1);
    return fault;
  }

  private send(res: ServerResponse, response: SimResponse): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { ...(response.headers ?? {}) };
    let payload: Buffer | string | undefined;
    if (response.raw) {
      payload = response.raw;
    } else if (response.body !== undefined) {
      payload = typeof response.body === 'string' && headers['content-type'] ? response.body : toJson(response.body);
      headers['content-type'] ??= 'application/json';
    }
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    res.writeHead(response.status, headers);
    res.end(payload);
  }
}

/** A small valid PDF whose text carries `label`, so tests can tell files apart by their bytes. */
export function makePdf(label: string, padToBytes = 0): Buffer {
  const head = `%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n% ${label}\n`;
  const tail = '%%EOF\n';
  const padding = Math.max(0, padToBytes - head.length - tail.length);
  return Buffer.concat([Buffer.from(head), Buffer.alloc(padding, 0x20), Buffer.from(tail)]);
}
