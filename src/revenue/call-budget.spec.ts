import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallMeter, withCallMeter } from '../http/call-meter.js';
import { OutboundHttp } from '../http/outbound-http.js';
import { coqlCredits } from '../record-crm/zoho/zoho-revenue.client.js';
import { CallBudget } from './call-budget.js';

const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxInlineRetryAfterMs: 10 };

describe('a pass counts the calls its CRM received', () => {
  let server: Server;
  let base: string;
  let received = 0;
  let busy = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      received++;
      // `/busy` answers 503 `busy` times, then 200: each try is a request the other side received.
      if (req.url === '/busy' && busy > 0) {
        busy--;
        res.statusCode = 503;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (received = 0));

  const client = (system: string) => new OutboundHttp({ system, baseUrl: base, timeoutMs: 2_000, retry });

  it('meters every try sent within the pass, per system, and nothing sent outside it', async () => {
    const crm = client('appointment_crm');
    const service = client('service');
    const meter = new CallMeter();
    busy = 2;
    await crm.request({ endpoint: 'GET /outside', method: 'GET', path: '/outside' });
    await withCallMeter(meter, async () => {
      await crm.request({ endpoint: 'GET /busy', method: 'GET', path: '/busy' });
      await Promise.all([
        crm.request({ endpoint: 'GET /a', method: 'GET', path: '/a' }),
        service.request({ endpoint: 'P1 GET /b', method: 'GET', path: '/b' }),
      ]);
    });
    // Outside, then 503, 503, 200, then /a and /b side by side.
    expect(received).toBe(6);
    expect(meter.of('appointment_crm')).toBe(4);
    expect(meter.of('service')).toBe(1);
    expect(meter.of('zoho')).toBe(0);
  });

  it("counts a call at its stated cost: a COQL query by its LIMIT, as Zoho's credits do", async () => {
    const zoho = client('zoho');
    const meter = new CallMeter();
    await withCallMeter(meter, async () => {
      await zoho.request({ endpoint: 'GET /Deals', method: 'GET', path: '/deals' });
      await zoho.request({ endpoint: 'POST /coql', method: 'POST', path: '/coql', json: {}, cost: coqlCredits(1000) });
    });
    expect(received).toBe(2);
    expect(meter.of('zoho')).toBe(3);
    expect([coqlCredits(1), coqlCredits(200), coqlCredits(201), coqlCredits(1000), coqlCredits(1001), coqlCredits(2000)]).toEqual([1, 1, 2, 2, 3, 3]);
  });
});

describe(CallBudget.name, () => {
  it('spends what the meter counted; a record is read while the dearest record so far still fits', async () => {
    let made = 0;
    const budget = new CallBudget(10, () => made);
    expect(budget.fits(10)).toBe(true);
    expect(budget.fits(11)).toBe(false);
    // The first record: nothing known yet but the fewest calls any record makes.
    expect(budget.fitsRecord(2)).toBe(true);
    await budget.record(async () => (made += 6));
    expect(budget.spent).toBe(6);
    // Six more would pass 10, although the fewest (2) would fit: the pass stops before it.
    expect(budget.fits(2)).toBe(true);
    expect(budget.fitsRecord(2)).toBe(false);
    // A record that failed still spent its calls, and they count.
    const cheap = new CallBudget(10, () => made);
    await expect(
      cheap.record(async () => {
        made += 3;
        throw new Error('not found');
      }),
    ).rejects.toThrow('not found');
    expect(cheap.spent).toBe(9);
    expect(cheap.fitsRecord(1)).toBe(false);
  });
});
