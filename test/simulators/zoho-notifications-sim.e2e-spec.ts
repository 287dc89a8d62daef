import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZohoSim } from '../../sim/zoho/index.js';

type Json = Record<string, any>;

/** The simulator's notification API (crm-oas v8.0/notifications.json) against a notify URL of the test's own. */
describe('ZohoSim notifications', () => {
  const sim = new ZohoSim();
  const received: Json[] = [];
  let receiver: Server;
  let notifyUrl: string;
  let accessToken: string;

  beforeAll(async () => {
    await sim.start();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: 'zoho-client', client_secret: 'zoho-secret', refresh_token: 'zoho-refresh' });
    const res = await fetch(`${sim.accountsUrl}/oauth/v2/token`, { method: 'POST', body: form });
    accessToken = ((await res.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await sim.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const watch = (method: string, body?: unknown, query = '') =>
    fetch(`${sim.apiDomain}/crm/v8/actions/watch${query}`, {
      method,
      headers: { authorization: `Zoho-oauthtoken ${accessToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

  it('enables a channel (201, the kept expiry per event), lists it, and notifies create and edit with the token', async () => {
    const res = await watch('POST', {
      watch: [{ channel_id: 1000000068001, events: ['Deals.create', 'Deals.edit'], notify_url: notifyUrl, token: 'tok-1', channel_expiry: inAnHour() }],
    });
    expect(res.status).toBe(201);
    const [answer] = ((await res.json()) as Json).watch as Json[];
    expect(answer).toMatchObject({ status: 'success', code: 'SUCCESS', message: 'Successfully subscribed for actions-watch of the given module' });
    expect(answer.details.events).toHaveLength(2);
    expect(Date.parse(answer.details.events[0].channel_expiry)).toBeGreaterThan(Date.now() + 3500_000);

    const listed = (await (await watch('GET', undefined, '?channel_id=1000000068001')).json()) as Json;
    expect(listed.watch).toEqual([expect.objectContaining({ channel_id: 1000000068001, events: ['Deals.create', 'Deals.edit'], notify_url: notifyUrl })]);

    const deal = sim.addRecord('Deals', undefined, { Deal_Name: 'Roof', Stage: 'Qualification' });
    sim.modifyRecord('Deals', deal, { Stage: 'Closed Won' });
    sim.addRecord('Leads', undefined, { Last_Name: 'Not watched' });
    await waitUntil(() => received.length >= 2);
    // Zoho promises no order of arrival.
    expect(received.map((n) => [n.operation, n.ids, n.module, n.channel_id, n.token]).sort()).toEqual([
      ['insert', [deal], 'Deals', 1000000068001, 'tok-1'],
      ['update', [deal], 'Deals', 1000000068001, 'tok-1'],
    ]);
    await waitUntil(() => sim.notifications.sent.every((s) => s.status === 200));
  });

  it('keeps an expiry up to a week, gives an hour to one beyond a week, renews by PATCH only with channel_id, notify_url and events, and stops at expiry', async () => {
    const patch = (item: Json) =>
      watch('PATCH', { watch: [{ channel_id: 1000000068001, notify_url: notifyUrl, events: ['Deals.create', 'Deals.edit'], ...item }] });
    const kept = async (res: Response) => Date.parse((((await res.json()) as Json).watch as Json[])[0].details.events[0].channel_expiry);
    const inSixDays = new Date(Date.now() + 6 * 24 * 3600_000).toISOString();
    const res = await patch({ channel_expiry: inSixDays });
    expect(res.status).toBe(200);
    expect(await kept(res)).toBe(Math.floor(Date.parse(inSixDays) / 1000) * 1000);
    // PATCH keeps what it does not name (the token).
    expect(sim.notifications.live[0]).toMatchObject({ notifyUrl, token: 'tok-1', events: ['Deals.create', 'Deals.edit'] });
    // Beyond a week: an hour (Zoho's v8 notification pages).
    const beyond = await kept(await patch({ channel_expiry: new Date(Date.now() + 8 * 24 * 3600_000).toISOString() }));
    expect(beyond).toBeGreaterThan(Date.now() + 3500_000);
    expect(beyond).toBeLessThanOrEqual(Date.now() + 3600_000);

    // crm-oas v8 updateNotificationInfo: channel_id, notify_url and events are required of a PATCH too.
    for (const missing of ['notify_url', 'events', 'channel_id']) {
      const refused = await patch({ [missing]: undefined, channel_expiry: inAnHour() });
      expect([missing, refused.status, (((await refused.json()) as Json).watch as Json[])[0]]).toEqual([
        missing,
        202,
        expect.objectContaining({ status: 'error', code: 'MANDATORY_NOT_FOUND', details: expect.objectContaining({ api_name: missing }) }),
      ]);
    }

    await patch({ channel_expiry: new Date(Date.now() + 300).toISOString() });
    await waitUntil(() => sim.notifications.live.length === 0);
    expect((await watch('GET', undefined, '?channel_id=1000000068001')).status).toBe(204);
    const unknown = (await (await patch({ channel_expiry: inAnHour() })).json()) as Json;
    expect(unknown.watch[0]).toMatchObject({ status: 'error', code: 'NOT_SUBSCRIBED' });
  });

  it("notifies crm-sync's own API writes too, naming the fields an update changed", async () => {
    const post = await watch('POST', {
      watch: [{ channel_id: 1000000068002, events: ['Deals.edit'], notify_url: notifyUrl, token: 'tok-2', channel_expiry: inAnHour() }],
    });
    expect(post.status).toBe(201);
    const deal = sim.addRecord('Deals', undefined, { Deal_Name: 'Own', Stage: 'Qualification' });
    const put = await fetch(`${sim.apiDomain}/crm/v8/Deals/${deal}`, {
      method: 'PUT',
      headers: { authorization: `Zoho-oauthtoken ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: [{ Amount: 100, Stage: 'Closed Won' }] }),
    });
    expect(put.status).toBe(200);
    await waitUntil(() => received.some((n) => n.channel_id === 1000000068002));
    expect(received.find((n) => n.channel_id === 1000000068002)).toMatchObject({
      operation: 'update',
      ids: [deal],
      affected_fields: [{ [deal]: ['Amount', 'Stage'] }],
    });
    await watch('DELETE', undefined, '?channel_ids=1000000068002');
  });

  it('drops a channel as a fault, deletes one by channel_ids, and refuses a token over 50 characters', async () => {
    const enable = (id: number) =>
      watch('POST', { watch: [{ channel_id: id, events: ['Leads.edit'], notify_url: notifyUrl, token: 't', channel_expiry: inAnHour() }] });
    expect((await enable(7)).status).toBe(201);
    expect((await enable(8)).status).toBe(201);
    sim.notifications.dropChannel('7');
    expect((await watch('GET', undefined, '?channel_id=7')).status).toBe(204);
    expect((await watch('DELETE', undefined, '?channel_ids=8')).status).toBe(200);
    expect(sim.notifications.live).toEqual([]);
    const long = await watch('POST', { watch: [{ channel_id: 9, events: ['Leads.edit'], notify_url: notifyUrl, token: 'x'.repeat(51) }] });
    expect(long.status).toBe(202);
    expect(((await long.json()) as Json).watch[0]).toMatchObject({ code: 'INVALID_DATA', details: { api_name: 'token' } });
  });

  it('asks for ZohoCRM.notifications.ALL', async () => {
    const narrow = sim.issueRefreshToken(['ZohoCRM.modules.ALL']);
    const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: 'zoho-client', client_secret: 'zoho-secret', refresh_token: narrow });
    const token = ((await (await fetch(`${sim.accountsUrl}/oauth/v2/token`, { method: 'POST', body: form })).json()) as { access_token: string }).access_token;
    const res = await fetch(`${sim.apiDomain}/crm/v8/actions/watch`, { headers: { authorization: `Zoho-oauthtoken ${token}` } });
    expect(res.status).toBeGreaterThanOrEqual(401);
    expect(await res.text()).toContain('OAUTH_SCOPE_MISMATCH');
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
