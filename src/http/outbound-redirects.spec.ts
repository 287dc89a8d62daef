import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError } from './outbound-error.js';
import { OutboundHttp } from './outbound-http.js';

const retry = { attempts: 1, baseDelayMs: 1, maxDelayMs: 2, maxInlineRetryAfterMs: 10 };

/** A server on 127.0.0.1 that records the paths asked of it; `/moved` redirects to `/target`. */
async function recordingServer(): Promise<{ server: Server; url: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    if (req.url?.startsWith('/moved')) {
      res.writeHead(302, { location: '/target' });
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('outbound redirects and proxies', () => {
  let target: Awaited<ReturnType<typeof recordingServer>>;
  let proxy: Awaited<ReturnType<typeof recordingServer>>;
  const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy, NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
  beforeAll(async () => {
    target = await recordingServer();
    proxy = await recordingServer();
  });
  afterAll(async () => {
    await close(target.server);
    await close(proxy.server);
  });
  beforeEach(() => {
    target.paths.length = 0;
    proxy.paths.length = 0;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('an API client follows no redirect: a 3xx fails the call, and the credential goes nowhere else', async () => {
    const api = new OutboundHttp({ system: 'service', baseUrl: target.url, timeoutMs: 2_000, retry, authorize: () => ({ authorization: 'Bearer t' }) });
    const failure = await api.request({ endpoint: 'P4 GET /projects/:id', method: 'GET', path: '/moved' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OutboundError);
    expect(failure).toMatchObject({ status: 302 });
    expect(target.paths).toEqual(['/moved']);
  });

  it('a download follows a redirect (checked by the address guard)', async () => {
    const downloads = new OutboundHttp({ system: 'downloads', timeoutMs: 2_000, retry, addressPolicy: { allowPrivate: true } });
    const answer = await downloads.request<{ ok: boolean }>({ endpoint: 'download', method: 'GET', path: `${target.url}/moved` });
    expect(answer.data).toEqual({ ok: true });
    expect(target.paths).toEqual(['/moved', '/target']);
  });

  it('a download ignores HTTP_PROXY: it connects to the address the guard checked', async () => {
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    process.env.HTTP_PROXY = proxy.url;
    process.env.http_proxy = proxy.url;
    const downloads = new OutboundHttp({ system: 'downloads', timeoutMs: 2_000, retry, addressPolicy: { allowPrivate: true } });
    await downloads.request({ endpoint: 'download', method: 'GET', path: `${target.url}/file` });
    expect(proxy.paths).toEqual([]);
    expect(target.paths).toEqual(['/file']);
  });
});
