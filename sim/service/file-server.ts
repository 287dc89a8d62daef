import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from '../common/sim-server.js';

interface GeneratedFile {
  sizeBytes: number;
  contentType: string;
}

const HEAD = Buffer.from('%PDF-1.4\n% generated download\n');
const TAIL = Buffer.from('\n%%EOF\n');
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/**
 * Streams generated bodies of any size without holding them in memory. SimServer answers with one
 * buffered `res.end(payload)`, so ServiceSim.serveGeneratedFile points its URLs here instead.
 * Requests are recorded into the log given to the constructor (the ServiceSim's own `requests`).
 */
export class FileServer {
  private readonly files = new Map<string, GeneratedFile>();
  private server?: Server;
  private baseUrl?: string;
  private counter = 0;

  constructor(private readonly log: RecordedRequest[]) {}

  get url(): string {
    if (!this.baseUrl) throw new Error('file server is not started');
    return this.baseUrl;
  }

  /** Registers a generated body of `sizeBytes` (a `%PDF-` header, spaces, `%%EOF`) and returns its URL. */
  add(sizeBytes: number, contentType: string): string {
    const path = `/files/generated/${++this.counter}.bin`;
    this.files.set(path, { sizeBytes: Math.max(sizeBytes, HEAD.length + TAIL.length), contentType });
    return `${this.url}${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://sim');
      this.log.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.alloc(0), at: Date.now() });
      const file = this.files.get(url.pathname);
      if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.sizeBytes) });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      let remaining = file.sizeBytes - HEAD.length - TAIL.length;
      res.write(HEAD);
      const pump = (): void => {
        while (remaining > 0) {
          const piece = remaining >= CHUNK.length ? CHUNK : CHUNK.subarray(0, remaining);
          remaining -= piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end(TAIL);
      };
      pump();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
