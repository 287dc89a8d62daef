import { SimServer, bareNumber, parseExactJson } from './sim-server.js';

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

  it('answers 405 for a known path with another method and 404 for an unknown one', async () => {
    expect((await fetch(`${sim.url}/things`, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(`${sim.url}/nothing`)).status).toBe(404);
  });
});
