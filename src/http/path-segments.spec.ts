import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError } from './outbound-error.js';
import { OutboundHttp } from './outbound-http.js';
import { dotSegmentOf, NOT_A_DOT_SEGMENT } from './path-segments.js';

const retry = { attempts: 1, baseDelayMs: 1, maxDelayMs: 2, maxInlineRetryAfterMs: 10 };

describe('dot-segments in request paths', () => {
  let server: Server;
  let base: string;
  const paths: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a client sends no request whose path has an id . or .. (PUT /appointments/../sale would be PUT /sale)', async () => {
    const crm = new OutboundHttp({ system: 'appointment_crm', baseUrl: base, timeoutMs: 2_000, retry, authorize: () => ({ authorization: 'Bearer k' }) });
    for (const id of ['..', '.', '%2e%2E', '.%2e']) {
      const failure = await crm
        .request({ endpoint: 'PUT /appointments/:id/sale', method: 'PUT', path: `/appointments/${id}/sale`, json: {} })
        .catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(OutboundError);
      expect(failure).toMatchObject({ failure: 'rejected', transient: false });
    }
    expect(paths).toEqual([]);
    await crm.request({ endpoint: 'GET /appointments/:id', method: 'GET', path: `/appointments/${encodeURIComponent('a..b')}?q=..` });
    await crm.request({ endpoint: 'GET /services/data/v62.0/x', method: 'GET', path: '/services/data/v62.0/x' });
    expect(paths).toEqual(['/v1/appointments/a..b?q=..', '/v1/services/data/v62.0/x']);
  });

  it('finds dot-segments in relative and absolute paths, never in the query or in longer names', () => {
    expect(dotSegmentOf('/Deals/..')).toBe('..');
    expect(dotSegmentOf('https://h.example/a/./b')).toBe('.');
    expect(dotSegmentOf('/a/...')).toBeUndefined();
    expect(dotSegmentOf('/a/b?c=/../')).toBeUndefined();
    expect(NOT_A_DOT_SEGMENT.test('..')).toBe(false);
    expect(NOT_A_DOT_SEGMENT.test('%2E')).toBe(false);
    expect(NOT_A_DOT_SEGMENT.test('..a')).toBe(true);
  });
});
