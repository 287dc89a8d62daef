import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError } from './outbound-error.js';
import { OutboundHttp } from './outbound-http.js';
import { openPdf, PdfRejectedError } from './pdf-download.js';

const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxInlineRetryAfterMs: 10 };

describe('outbound limits', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      if (req.url === '/big.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ items: 'x'.repeat(4096) }));
      } else if (req.url === '/small.json') {
        res.setHeader('content-type', 'application/json');
        res.end('{"id":9007199254740993}');
      } else if (req.url === '/trickle.pdf') {
        res.setHeader('content-type', 'application/pdf');
        res.write('%PDF-1.4\n');
        // A byte every 100 ms never trips an idle time-out; only the overall deadline ends it.
        const timer = setInterval(() => res.write('.'), 100);
        res.on('close', () => clearInterval(timer));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (requests = 0));

  it('fails a JSON answer over maxJsonBytes at once, naming HTTP_MAX_JSON_BYTES', async () => {
    const http = new OutboundHttp({ system: 'service', baseUrl: base, timeoutMs: 2_000, retry, maxJsonBytes: 2048 });
    const failure = await http.request({ endpoint: 'P1 GET /big', method: 'GET', path: '/big.json' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OutboundError);
    expect(failure).toMatchObject({ failure: 'invalid_response', transient: false });
    expect((failure as Error).message).toContain('answer larger than 2048 bytes (HTTP_MAX_JSON_BYTES)');
    expect(requests).toBe(1);
    const small = await http.request<{ id: string }>({ endpoint: 'P1 GET /small', method: 'GET', path: '/small.json' });
    expect(String(small.data.id)).toBe('9007199254740993');
  });

  it('ends a download that keeps trickling at its overall deadline, naming DOWNLOAD_DEADLINE_MS', async () => {
    const http = new OutboundHttp({ system: 'download', timeoutMs: 2_000, retry, addressPolicy: { allowPrivate: true } });
    const started = Date.now();
    const pdf = await openPdf(http, `${base}/trickle.pdf`, { maxBytes: 1_000_000, deadlineMs: 700 });
    const failure = await (async () => {
      for await (const chunk of pdf.stream) void chunk;
    })().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(PdfRejectedError);
    expect((failure as Error).message).toContain('not downloaded within 700 ms (DOWNLOAD_DEADLINE_MS)');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses plain http to a loopback address when private addresses are not allowed, without a request', async () => {
    const http = new OutboundHttp({ system: 'download', timeoutMs: 2_000, retry, addressPolicy: { allowPrivate: false } });
    const failure = await openPdf(http, `${base}/trickle.pdf?signature=s3cr3t`, { maxBytes: 1_000, deadlineMs: 5_000 }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ failure: 'rejected', transient: false });
    expect((failure as Error).message).toContain('refused: http is not https');
    expect((failure as Error).message).not.toContain('s3cr3t');
    expect(requests).toBe(0);
  });
});
