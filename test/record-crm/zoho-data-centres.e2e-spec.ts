import { ZohoSim } from '../../sim/zoho/index.js';
import { ConnectionsService } from '../../src/connections/connections.service.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;

/** Zoho's `location`s, one per data centre of src/config/zoho-data-centres.ts. */
const LOCATIONS = ['us', 'eu', 'in', 'au', 'jp', 'ca', 'sa', 'uk', 'cn'];
const CALLBACK_PATH = '/admin/connections/record-crm/callback';

/**
 * Connecting a Zoho account of each data centre, started from the US accounts server (the console's default): the
 * code is exchanged, the token refreshed and the refresh token revoked at the accounts server Zoho named in the
 * redirect, each data centre being a server of its own. A client with a secret of its own in a data centre is told
 * what to do.
 */
describe('Zoho CRM in every data centre', () => {
  const zoho = new ZohoSim({ dataCenter: 'us', otherDataCenters: LOCATIONS.filter((l) => l !== 'us') });
  let h: Harness;

  beforeAll(async () => {
    await zoho.start();
    h = await startHarness({ redisDb: 14 });
    h.config.publicUrl = h.url;
    zoho.addRedirectUri(`${h.url}${CALLBACK_PATH}`);
    zoho.autoApprove = true;
  });
  afterAll(async () => {
    await h?.close();
    await zoho.stop();
  });
  afterEach(() => {
    zoho.dataCenter = 'us';
  });

  /** Connect from the console with the US accounts server, consent, and come back: the callback's answer. */
  async function connectAs(location: string, clientSecret = zoho.clientSecret, accountsUrl = zoho.accountsUrl): Promise<Response> {
    zoho.dataCenter = location;
    const res = await h.admin('/api/connections/record-crm', {
      method: 'PUT',
      json: { accounts_url: accountsUrl, client_id: zoho.clientId, client_secret: clientSecret },
    });
    expect(res.status).toBe(200);
    const { authorize_url: authorizeUrl } = (await res.json()) as Json;
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    const consent = await fetch(authorizeUrl as string, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect(back.searchParams.get('location')).toBe(location);
    expect(back.searchParams.get('accounts-server')).toBe(zoho.accountsOf(location).url);
    return fetch(back, { redirect: 'manual', headers: { cookie } });
  }

  const tokenCalls = (location: string, grant: string) =>
    zoho
      .accountsOf(location)
      .requestsTo('POST', '/oauth/v2/token')
      .filter((r) => new URLSearchParams(r.body.toString()).get('grant_type') === grant).length;

  it.each(LOCATIONS)('an account in %s: exchange, refresh and revoke at its own accounts server', async (location) => {
    const server = zoho.accountsOf(location);
    const before = { exchanges: tokenCalls(location, 'authorization_code'), refreshes: tokenCalls(location, 'refresh_token') };
    expect((await connectAs(location)).status).toBe(303);
    expect(tokenCalls(location, 'authorization_code')).toBe(before.exchanges + 1);
    const item = ((await (await h.admin('/api/connections')).json()) as Json).items.find((i: Json) => i.name === 'record_crm');
    expect(item.settings.accounts_url).toBe(server.url);

    const tested = await h.admin('/api/connections/record-crm/test', { method: 'POST' });
    expect(((await tested.json()) as Json).ok).toBe(true);
    expect(tokenCalls(location, 'refresh_token')).toBeGreaterThan(before.refreshes);

    const revokes = () => LOCATIONS.map((l) => zoho.accountsOf(l).requestsTo('POST', '/oauth/v2/token/revoke').length);
    const expected = revokes().map((n, i) => (LOCATIONS[i] === location ? n + 1 : n));
    expect(((await (await h.admin('/api/connections/record-crm', { method: 'DELETE' })).json()) as Json).revoked).toBe(true);
    expect(revokes()).toEqual(expected);
  });

  it("a client with a secret of its own in the account's data centre: refused, saying how to fix it; that secret there works", async () => {
    zoho.registerClient({
      clientId: zoho.clientId,
      clientSecret: zoho.clientSecret,
      redirectUris: [`${h.url}${CALLBACK_PATH}`],
      secrets: { eu: 'eu-only-secret' },
    });
    const refused = await connectAs('eu');
    expect(refused.status).toBe(502);
    const page = await refused.text();
    expect(page).toContain('refused the client secret');
    expect(page).toContain('same client secret for all data centres');
    expect(page).not.toContain(zoho.clientSecret);

    expect((await connectAs('eu', 'eu-only-secret', zoho.accountsOf('eu').url)).status).toBe(303);
    const tested = await h.admin('/api/connections/record-crm/test', { method: 'POST' });
    expect(((await tested.json()) as Json).ok).toBe(true);
  });
});

describe('saved Zoho URLs checked again on load', () => {
  let custom: Harness;
  let strict: Harness;
  beforeAll(async () => {
    custom = await startHarness({ redisDb: 14 });
    // A second replica on the same database, with RECORD_CRM_ALLOW_CUSTOM_DOMAINS turned off.
    strict = await startHarness({ redisDb: 14, databaseUrl: custom.databaseUrl, env: { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false' } });
  });
  afterAll(async () => {
    await strict?.close();
    await custom?.close();
  });

  it('a connection saved while custom domains were allowed is not used (no secret sent) once they are not; the console says why', async () => {
    const settings = { accountsUrl: 'https://accounts.example.net', apiDomain: 'https://crm.example.net', clientId: 'c', clientSecret: 's', refreshToken: 'r' };
    await custom.app.get(ConnectionsService).save('record_crm', settings, 'test');
    expect(await custom.app.get(ConnectionsService).get('record_crm')).toEqual(settings);
    const service = strict.app.get(ConnectionsService);
    // The other replica reads the saved row within its refresh period.
    const state = await waitFor(async () => (await service.states()).find((s) => s.name === 'record_crm' && s.problem !== null), 10_000, 'the row read');
    expect(await service.get('record_crm')).toBeNull();
    expect(state?.problem).toContain('accounts_url must be one of Zoho');
    expect(state?.problem).toContain('RECORD_CRM_ALLOW_CUSTOM_DOMAINS');
    const listed = ((await (await strict.admin('/api/connections')).json()) as Json).items.find((c: Json) => c.name === 'record_crm');
    expect(listed).toMatchObject({ status: 'degraded', detail: expect.stringContaining('the saved Zoho CRM connection is not used') });
  });
});
