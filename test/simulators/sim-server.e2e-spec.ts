import { SimServer, bareNumber, parseExactJson } from '../../sim/common/sim-server.js';

describe(SimServer.name, () => {
  const sim = new SimServer('test');
  beforeAll(async () => {
    sim.route('GET', '/things/:id', (req) => ({ status: 200, body: { id: bareNumber(req.params.id) } }));
    sim.route('POST', '/things', (req) => ({ status: 201, body: { got: req.json } }));
    await sim.start();
  });
  afterAll(() => sim.stop());

  it('routes, writes big ids as bare numbers and parses them back exactly', async () => {
    const res = await fetch(`${sim.url}/things/36029621652695017`);
    const text = await res.text();
    expect(text).toBe('{"id":36029621652695017}');
    expect(parseExactJson(text)).toEqual({ id: '36029621652695017' });
  });

  it('injects faults for the given number of matching requests, then answers normally', async () => {
    sim.injectFault({ method: 'POST', path: '/things', times: 1, status: 429, retryAfterSeconds: 2 });
    const first = await fetch(`${sim.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    const second = await fetch(`${sim.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual({ got: { n: 1 } });
    expect(sim.requestsTo('POST', '/things')).toHaveLength(2);
  });

  it('applies a request and then holds its answer (afterHandling with delayMs): the effect precedes the answer', async () => {
    const applied: number[] = [];
    sim.route('POST', '/held', () => {
      applied.push(Date.now());
      return { status: 201, body: { ok: true } };
    });
    sim.injectFault({ method: 'POST', path: '/held', times: 1, afterHandling: true, delayMs: 400 });
    const sent = Date.now();
    const answer = fetch(`${sim.url}/held`, { method: 'POST' });
    await new Promise((r) => setTimeout(r, 150));
    expect(applied).toHaveLength(1); // applied while the answer is still held
    const res = await answer;
    expect(res.status).toBe(201);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(390);
    expect(applied).toHaveLength(1);
  });

  it('answers 405 for a known path with another method and 404 for an unknown one', async () => {
    expect((await fetch(`${sim.url}/things`, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(`${sim.url}/nothing`)).status).toBe(404);
  });
});
