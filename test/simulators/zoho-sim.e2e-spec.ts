import { makePdf } from '../../sim/common/sim-server.js';
import { AUTHORIZATION_CODE_LIFETIME_MS, ZohoSim } from '../../sim/zoho/index.js';
import { SELF_CLIENT_SCOPES } from '../../sim/zoho/scopes.js';

describe(ZohoSim.name, () => {
  const sim = new ZohoSim();

  beforeAll(() => sim.start());
  afterAll(() => sim.stop());
  afterEach(() => {
    sim.legacyExpiresInMs = false;
    sim.throttleLimit = 10;
    sim.missingRecordStyle = 'no-content';
  });

  function tokenRequest(fields: Record<string, string> = {}): Promise<Response> {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'zoho-client',
      client_secret: 'zoho-secret',
      refresh_token: 'zoho-refresh',
      ...fields,
    });
    return fetch(`${sim.accountsUrl}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
  }

  // Cached, as the daemon does: the sim allows only 10 tokens per refresh token per 10 minutes.
  let cached: string | undefined;
  async function token(): Promise<string> {
    cached ??= ((await (await tokenRequest()).json()) as { access_token: string }).access_token;
    return cached;
  }

  async function call(path: string, init: RequestInit = {}, accessToken?: string): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Zoho-oauthtoken ${accessToken ?? (await token())}`);
    return fetch(`${sim.apiDomain}/crm/v8${path}`, { ...init, headers });
  }

  function upload(module: string, id: string, bytes: Buffer, name: string, accessToken?: string): Promise<Response> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
    return call(`/${module}/${id}/Attachments`, { method: 'POST', body: form }, accessToken);
  }

  describe('accounts', () => {
    it('grants a token with the API domain and a lifetime in seconds', async () => {
      const before = sim.tokensIssued;
      const res = await tokenRequest();
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        access_token: expect.stringMatching(/^1000\.\w+\.\w+$/),
        scope: SELF_CLIENT_SCOPES.join(' '),
        api_domain: sim.apiDomain,
        token_type: 'Bearer',
        expires_in: 3600,
      });
      expect(sim.tokensIssued).toBe(before + 1);
      expect(sim.tokenRequests.at(-1)?.body.toString()).toContain('grant_type=refresh_token');
    });

    it('answers invalid_code with status 200 for a wrong refresh token or client', async () => {
      for (const fields of [{ refresh_token: 'nope' }, { client_secret: 'nope' }] as Record<string, string>[]) {
        const res = await tokenRequest(fields);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ error: 'invalid_code' });
      }
    });

    it('answers the legacy shape with expires_in in ms', async () => {
      sim.legacyExpiresInMs = true;
      const body = (await (await tokenRequest()).json()) as Record<string, unknown>;
      expect(body).toMatchObject({ expires_in: 3_600_000, expires_in_sec: 3600 });
    });

    it('throttles after the limit with "Access Denied" and status 200', async () => {
      const throttled = new ZohoSim({ refreshToken: 'other' });
      await throttled.start();
      try {
        throttled.throttleLimit = 2;
        const ask = () =>
          fetch(`${throttled.accountsUrl}/oauth/v2/token`, {
            method: 'POST',
            body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'zoho-client', client_secret: 'zoho-secret', refresh_token: 'other' }),
          });
        expect(await (await ask()).json()).toHaveProperty('access_token');
        expect(await (await ask()).json()).toHaveProperty('access_token');
        const third = await ask();
        expect(third.status).toBe(200);
        expect(await third.json()).toMatchObject({ error: 'Access Denied', error_description: expect.stringContaining('too many requests') });
        expect(throttled.tokensIssued).toBe(2);
      } finally {
        await throttled.stop();
      }
    });
  });

  describe('OAuth authorization code', () => {
    const REDIRECT_URI = 'http://127.0.0.1:9/zoho/callback';
    const SCOPES = ['ZohoCRM.modules.Deals.READ', 'ZohoCRM.modules.attachments.CREATE', 'ZohoCRM.modules.notes.CREATE'];
    // Quotes, an ampersand and angle brackets: the state must survive the consent form's HTML unchanged.
    const STATE = 'st-42 "quoted" & <b>';
    const client = { clientId: 'daemon', clientSecret: 'daemon-secret', redirectUris: [REDIRECT_URI], name: 'crm-sync' };
    const oauth = new ZohoSim({ oauthClients: [client] });

    beforeAll(() => oauth.start());
    afterAll(() => oauth.stop());
    afterEach(() => {
      oauth.autoApprove = false;
      oauth.authorizationCodeLifetimeMs = AUTHORIZATION_CODE_LIFETIME_MS;
    });

    function authQuery(overrides: Record<string, string> = {}): URLSearchParams {
      return new URLSearchParams({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: SCOPES.join(','),
        access_type: 'offline',
        prompt: 'consent',
        state: STATE,
        ...overrides,
      });
    }

    const authorize = (query = authQuery()) => fetch(`${oauth.accountsUrl}/oauth/v2/auth?${query}`, { redirect: 'manual' });

    const decide = (decision: 'approve' | 'reject', query = authQuery()) =>
      fetch(`${oauth.accountsUrl}/oauth/v2/auth/${decision}`, { method: 'POST', body: query, redirect: 'manual' });

    function redirectOf(res: Response): URL {
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!);
    }

    async function codeFor(query = authQuery()): Promise<string> {
      return redirectOf(await decide('approve', query)).searchParams.get('code')!;
    }

    async function accountsCall(path: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
      const res = await fetch(`${oauth.accountsUrl}${path}`, { method: 'POST', body: new URLSearchParams(fields) });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    }

    const exchange = (code: string, overrides: Record<string, string> = {}) =>
      accountsCall('/oauth/v2/token', {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: REDIRECT_URI,
        code,
        ...overrides,
      });

    const refresh = (refreshToken: string) =>
      accountsCall('/oauth/v2/token', {
        grant_type: 'refresh_token',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        refresh_token: refreshToken,
      });

    const getRecord = (id: string, accessToken: string) =>
      fetch(`${oauth.apiDomain}/crm/v8/Deals/${id}`, { headers: { authorization: `Zoho-oauthtoken ${accessToken}` } });

    it('serves a consent page naming the client and the scopes, with Accept and Reject forms carrying the request', async () => {
      const res = await authorize();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('crm-sync would like to access your Zoho account');
      for (const scope of SCOPES) expect(html).toContain(`<li>${scope}</li>`);
      expect(html).toContain('<form method="post" action="/oauth/v2/auth/approve">');
      expect(html).toContain('<form method="post" action="/oauth/v2/auth/reject">');
      expect(html).toContain('<button type="submit">Accept</button>');
      expect(html).toContain('<button type="submit">Reject</button>');
      expect(html).toContain('<input type="hidden" name="state" value="st-42 &#34;quoted&#34; &#38; &#60;b&#62;">');
      expect(html).not.toContain('<script');
    });

    it('refuses a bad authorization request with an HTML error page and status 400, redirecting nowhere', async () => {
      const bad: Record<string, string>[] = [
        { client_id: 'nobody' },
        { redirect_uri: 'http://127.0.0.1:9/elsewhere' },
        { response_type: 'token' },
        { scope: '' },
        { scope: ' , ' },
        { scope: 'ZohoCRM.modules.Deals.READ,ZohoCRM.modules.Deal.READ' },
        { scope: 'ZohoCRM.modules.Deals.WRITE' },
      ];
      for (const overrides of bad) {
        const res = await authorize(authQuery(overrides));
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('<p id="error">');
      }
      expect((await decide('approve', authQuery({ client_id: 'nobody' }))).status).toBe(400);
    });

    it('redirects an accepted request with code, location, accounts-server and state, and records the scopes granted', async () => {
      const location = redirectOf(await decide('approve'));
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('code')).toMatch(/^1000\.\w+\.\w+$/);
      expect(location.searchParams.get('location')).toBe('us');
      expect(location.searchParams.get('accounts-server')).toBe(oauth.accountsUrl);
      expect(location.search).toContain(`accounts-server=${encodeURIComponent(oauth.accountsUrl)}`);
      expect(location.searchParams.get('state')).toBe(STATE);
      expect(location.search).toContain(`state=${encodeURIComponent(STATE)}`);
      expect(oauth.grantedScopes).toEqual(SCOPES);
      expect(oauth.consents.at(-1)).toEqual({ clientId: 'daemon', redirectUri: REDIRECT_URI, scopes: SCOPES, state: STATE, approved: true });
    });

    it('redirects a rejected request with error=access_denied and the state, and no code', async () => {
      const location = redirectOf(await decide('reject', authQuery({ state: 'st-43' })));
      expect([...location.searchParams]).toEqual([
        ['error', 'access_denied'],
        ['state', 'st-43'],
      ]);
      expect(oauth.consents.at(-1)).toMatchObject({ state: 'st-43', approved: false });
    });

    it('redirects with a code from the GET at once when autoApprove is on', async () => {
      oauth.autoApprove = true;
      const location = redirectOf(await authorize(authQuery({ state: 'st-44' })));
      expect(location.searchParams.get('code')).toMatch(/^1000\./);
      expect(location.searchParams.get('state')).toBe('st-44');
    });

    it('exchanges a code once for tokens that work with the API and the refresh grant', async () => {
      const code = await codeFor();
      const tokens = await exchange(code);
      expect(tokens).toEqual({
        access_token: expect.stringMatching(/^1000\.\w+\.\w+$/),
        refresh_token: expect.stringMatching(/^1000\.\w+\.\w+$/),
        scope: SCOPES.join(' '),
        api_domain: oauth.apiDomain,
        token_type: 'Bearer',
        expires_in: 3600,
      });
      expect(await exchange(code)).toEqual({ error: 'invalid_code' });

      const id = oauth.addRecord('Deals');
      expect((await getRecord(id, tokens.access_token as string)).status).toBe(200);
      const refreshed = await refresh(tokens.refresh_token as string);
      expect(refreshed).toMatchObject({ access_token: expect.any(String), api_domain: oauth.apiDomain, token_type: 'Bearer', expires_in: 3600 });
      expect(refreshed).not.toHaveProperty('refresh_token');
      expect((await getRecord(id, refreshed.access_token as string)).status).toBe(200);
      expect(oauth.scopesOf(tokens.refresh_token as string)).toEqual(SCOPES);
    });

    it('gives a refresh token on the first offline consent, and again only when prompt=consent asks', async () => {
      oauth.account = { userId: '4150868000000777001', email: 'new@acme.example', fullName: 'New', org: { id: '12345', name: 'Acme Roofing' } };
      const first = await exchange(await codeFor(authQuery({ prompt: 'none' })));
      expect(first).toHaveProperty('refresh_token');
      const again = await exchange(await codeFor(authQuery({ prompt: 'none' })));
      expect(again).toHaveProperty('access_token');
      expect(again).not.toHaveProperty('refresh_token');
      expect(await exchange(await codeFor(authQuery({ prompt: 'consent' })))).toHaveProperty('refresh_token');
      expect(await exchange(await codeFor(authQuery({ access_type: 'online', prompt: 'consent' })))).not.toHaveProperty('refresh_token');
    });

    it('enforces the scopes of each call, by the stricter reading or the YAML files', async () => {
      const tokens = await exchange(await codeFor(authQuery({ scope: 'ZohoCRM.modules.attachments.CREATE,ZohoCRM.modules.Deals.READ' })));
      const id = oauth.addRecord('Deals');
      const form = () => {
        const body = new FormData();
        body.append('file', new Blob([makePdf('s')], { type: 'application/pdf' }), 's.pdf');
        return body;
      };
      const send = () =>
        fetch(`${oauth.apiDomain}/crm/v8/Deals/${id}/Attachments`, {
          method: 'POST',
          body: form(),
          headers: { authorization: `Zoho-oauthtoken ${tokens.access_token as string}` },
        });
      const refused = await send();
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'OAUTH_SCOPE_MISMATCH' });
      oauth.scopeReading = 'yaml';
      try {
        expect((await send()).status).toBe(200);
      } finally {
        oauth.scopeReading = 'strict';
      }
      const org = await fetch(`${oauth.apiDomain}/crm/v8/org`, { headers: { authorization: `Zoho-oauthtoken ${tokens.access_token as string}` } });
      expect(org.status).toBe(401);
    });

    it('answers the organization and the current user of the consent, or no organization for a user of none', async () => {
      const scope = 'ZohoCRM.org.READ,ZohoCRM.users.READ';
      const acme = await exchange(await codeFor(authQuery({ scope })));
      const as = (token: unknown) => ({ headers: { authorization: `Zoho-oauthtoken ${token as string}` } });
      expect(await (await fetch(`${oauth.apiDomain}/crm/v8/org`, as(acme.access_token))).json()).toMatchObject({
        org: [{ id: '12345', company_name: 'Acme Roofing' }],
      });
      const users = await fetch(`${oauth.apiDomain}/crm/v8/users?type=CurrentUser`, as(acme.access_token));
      expect(await users.json()).toMatchObject({ users: [{ email: oauth.account.email }] });
      oauth.account = { userId: '4150868000000777002', email: 'nobody@example.com', fullName: 'Nobody', org: null };
      const none = await exchange(await codeFor(authQuery({ scope })));
      expect((await fetch(`${oauth.apiDomain}/crm/v8/org`, as(none.access_token))).status).toBe(204);
    });

    it('refuses an unknown client, a wrong secret, a wrong redirect_uri and an unknown code, each with status 200, leaving the code usable', async () => {
      const code = await codeFor();
      expect(await exchange(code, { client_id: 'nobody' })).toEqual({ error: 'invalid_client' });
      expect(await exchange(code, { client_secret: 'wrong' })).toEqual({ error: 'invalid_client_secret' });
      expect(await exchange(code, { redirect_uri: 'http://127.0.0.1:9/elsewhere' })).toEqual({ error: 'invalid_redirect_uri' });
      expect(await exchange('1000.unknown.code')).toEqual({ error: 'invalid_code' });
      expect(await exchange(code)).toHaveProperty('refresh_token');
    });

    it('refuses a code past its lifetime (2 minutes, as Zoho documents)', async () => {
      expect(AUTHORIZATION_CODE_LIFETIME_MS).toBe(120_000);
      oauth.authorizationCodeLifetimeMs = 0;
      expect(await exchange(await codeFor())).toEqual({ error: 'invalid_code' });
    });

    it('gives no refresh token to an online authorization (no access_type=offline)', async () => {
      const query = authQuery();
      query.delete('access_type');
      const tokens = await exchange(await codeFor(query));
      expect(tokens).toHaveProperty('access_token');
      expect(tokens).not.toHaveProperty('refresh_token');
    });

    it('revokes a refresh token: a later refresh answers invalid_code and its access tokens stop working', async () => {
      const tokens = await exchange(await codeFor());
      const refreshToken = tokens.refresh_token as string;
      const id = oauth.addRecord('Deals');

      expect(await accountsCall(`/oauth/v2/token/revoke?token=${encodeURIComponent(refreshToken)}`, {})).toEqual({ status: 'success' });
      expect(oauth.revokedTokens.at(-1)).toBe(refreshToken);
      expect(await refresh(refreshToken)).toEqual({ error: 'invalid_code' });
      const stale = await getRecord(id, tokens.access_token as string);
      expect(stale.status).toBe(401);
      expect(await stale.json()).toMatchObject({ code: 'INVALID_TOKEN' });

      for (const token of [refreshToken, '1000.unknown.token']) {
        const again = await fetch(`${oauth.accountsUrl}/oauth/v2/token/revoke?token=${token}`, { method: 'POST' });
        expect(again.status).toBe(400);
      }
    });

    it('revokes an access token alone, leaving its refresh token working', async () => {
      const tokens = await exchange(await codeFor());
      expect(await accountsCall(`/oauth/v2/token/revoke?token=${tokens.access_token as string}`, {})).toEqual({ status: 'success' });
      expect((await getRecord(oauth.addRecord('Deals'), tokens.access_token as string)).status).toBe(401);
      expect(await refresh(tokens.refresh_token as string)).toHaveProperty('access_token');
    });

    it("takes a redirect URI registered after start, e.g. the daemon's once its port is known", async () => {
      const later = 'http://127.0.0.1:10/zoho/callback';
      expect((await authorize(authQuery({ redirect_uri: later }))).status).toBe(400);
      oauth.addRedirectUri(later, client.clientId);
      expect((await authorize(authQuery({ redirect_uri: later }))).status).toBe(200);

      oauth.registerClient({ clientId: 'other', clientSecret: 'other-secret', redirectUris: [later] });
      expect(await (await authorize(authQuery({ client_id: 'other', redirect_uri: later }))).text()).toContain('other would like to access');
    });
  });

  describe('API', () => {
    it('answers 401 INVALID_TOKEN for an unknown token and after expireAllTokens', async () => {
      const bad = await call('/Deals/1', {}, 'wrong');
      expect(bad.status).toBe(401);
      expect(await bad.json()).toEqual({ code: 'INVALID_TOKEN', details: {}, message: 'invalid oauth token', status: 'error' });

      const id = sim.addRecord('Deals');
      const accessToken = await token();
      expect((await call(`/Deals/${id}`, {}, accessToken)).status).toBe(200);
      sim.expireAllTokens();
      cached = undefined;
      const expired = await call(`/Deals/${id}`, {}, accessToken);
      expect(expired.status).toBe(401);
      expect(await expired.json()).toMatchObject({ code: 'INVALID_TOKEN' });

      const missing = await fetch(`${sim.apiDomain}/crm/v8/Deals/${id}`);
      expect(await missing.json()).toMatchObject({ code: 'AUTHENTICATION_FAILURE', status: 'error' });
    });

    it('answers a scope mismatch 401 or 403 OAUTH_SCOPE_MISMATCH, by a switch', async () => {
      const id = sim.addRecord('Deals');
      sim.scopeMismatch = true;
      try {
        const as401 = await call(`/Deals/${id}/Notes?fields=id`);
        expect(as401.status).toBe(401);
        expect(await as401.json()).toMatchObject({ code: 'OAUTH_SCOPE_MISMATCH', status: 'error' });
        sim.scopeMismatchStatus = 403;
        const as403 = await call(`/Deals/${id}/Notes?fields=id`);
        expect(as403.status).toBe(403);
        expect(await as403.json()).toEqual({ code: 'OAUTH_SCOPE_MISMATCH', details: {}, message: 'required oauth scope is missing', status: 'error' });
      } finally {
        sim.scopeMismatch = false;
        sim.scopeMismatchStatus = 401;
      }
    });

    it('lists the modules, the Deals’ layouts and each layout’s pipelines, as modules.yaml, layouts.yaml and pipeline.yaml say', async () => {
      const modules = (await (await call('/settings/modules')).json()) as { modules: Array<Record<string, unknown>> };
      expect(modules.modules.find((m) => m.api_name === 'Deals')).toMatchObject({ plural_label: 'Deals', api_supported: true, status: 'visible' });
      const layoutId = '4150868000000095001';
      sim.revenue.layouts.set(layoutId, { name: 'Service', pipelines: [] });
      sim.revenue.addPipeline(
        'Service',
        [
          { value: 'Booked', forecast: 'Open' },
          { value: 'Done', forecast: 'Closed Won' },
        ],
        layoutId,
      );
      try {
        const layouts = (await (await call('/settings/layouts?module=Deals')).json()) as { layouts: Array<Record<string, unknown>> };
        expect(layouts.layouts.map((l) => [l.id, l.display_label, l.status])).toContainEqual([layoutId, 'Service', 'active']);
        const pipelines = (await (await call(`/settings/pipeline?layout_id=${layoutId}`)).json()) as { pipeline: Array<Record<string, unknown>> };
        expect(pipelines.pipeline).toHaveLength(1);
        expect(pipelines.pipeline[0]).toMatchObject({ actual_value: 'Service', default: true });
        expect((pipelines.pipeline[0].maps as Array<Record<string, unknown>>).map((m) => [m.actual_value, m.sequence_number, m.forecast_type])).toEqual([
          ['Booked', 1, 'Open'],
          ['Done', 2, 'Closed Won'],
        ]);
        expect(((await (await call('/settings/layouts')).json()) as { code: string }).code).toBe('REQUIRED_PARAM_MISSING');
        expect(((await (await call('/settings/layouts?module=Nope')).json()) as { code: string }).code).toBe('INVALID_MODULE');
      } finally {
        sim.revenue.layouts.delete(layoutId);
      }
    });

    it("Get Records checks its parameters as Zoho's v8 record.yaml says", async () => {
      sim.addRecord('Leads', undefined, { Last_Name: 'A' });
      const codeOf = async (query: string) => {
        const res = await call(`/Leads${query}`);
        return { status: res.status, code: ((await res.json()) as { code: string }).code };
      };
      expect(await codeOf('')).toEqual({ status: 400, code: 'REQUIRED_PARAM_MISSING' });
      expect(await codeOf('?fields=Last_Name&per_page=201')).toEqual({ status: 400, code: 'INVALID_DATA' });
      expect(await codeOf('?fields=Last_Name&sort_by=Last_Name')).toEqual({ status: 400, code: 'INVALID_DATA' });
      const ids = Array.from({ length: 101 }, (_, i) => String(4150868000000000000n + BigInt(i))).join(',');
      expect(await codeOf(`?fields=Last_Name&ids=${ids}`)).toEqual({ status: 400, code: 'LIMIT_EXCEEDED' });
      expect(await codeOf('?fields=Last_Name&page=11&per_page=200')).toEqual({ status: 400, code: 'DISCRETE_PAGINATION_LIMIT_EXCEEDED' });
      const future = await call('/Leads?fields=Last_Name', { headers: { 'If-Modified-Since': '2999-01-01T00:00:00+00:00' } });
      expect(future.status).toBe(304);
      expect(await future.text()).toBe('');
      expect((await call('/Contacts?fields=Last_Name&ids=4150868000000000001')).status).toBe(204);
    });

    it('reads a record and answers a missing one in both styles', async () => {
      const id = sim.addRecord('Quotes', undefined, { Subject: 'Q-1001' });
      expect(id).toMatch(/^\d{19}$/);
      // Zoho's record answers carry its times (Modified_Time is what If-Unmodified-Since sends back).
      expect(await (await call(`/Quotes/${id}`)).json()).toEqual({
        data: [
          {
            id,
            Subject: 'Q-1001',
            Created_Time: expect.stringMatching(/\+00:00$/),
            Modified_Time: expect.stringMatching(/\+00:00$/),
            // Who changed it last (crm-oas v8.0/record.json, a Minified_User): a record a test made, a rep.
            Modified_By: { name: 'Rita Rep', id: '4150868000000225013', email: 'rita.rep@example.com' },
          },
        ],
      });

      const noContent = await call('/Quotes/4150868000000000001');
      expect(noContent.status).toBe(204);
      expect(await noContent.text()).toBe('');

      sim.missingRecordStyle = 'invalid-data';
      const invalid = await call('/Quotes/4150868000000000001');
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ code: 'INVALID_DATA', message: 'the related id given seems to be invalid', status: 'error' });

      expect(await (await call(`/Widgets/${id}`)).json()).toMatchObject({ code: 'INVALID_MODULE' });
    });

    it('uploads an attachment, lists it with Size as a string and keeps the bytes', async () => {
      const id = sim.addRecord('Deals');
      const pdf = makePdf('Q-1001', 4000);
      const res = await upload('Deals', id, pdf, 'Q-1001.pdf');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: [{ code: string; details: { id: string }; status: string }] };
      expect(body.data[0]).toMatchObject({ code: 'SUCCESS', status: 'success', message: 'attachment uploaded successfully' });
      expect(body.data[0].details.id).toMatch(/^\d{19}$/);

      const list = await call(`/Deals/${id}/Attachments?fields=id,File_Name,Size,Created_Time`);
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({
        data: [{ id: body.data[0].details.id, File_Name: 'Q-1001.pdf', Size: String(pdf.length), Created_Time: expect.any(String) }],
        info: { per_page: 200, count: 1, page: 1, more_records: false },
      });
      const [stored] = sim.attachmentsOf('Deals', id);
      expect(stored.bytes.equals(pdf)).toBe(true);
      expect(stored.contentType).toBe('application/pdf');

      const download = await call(`/Deals/${id}/Attachments/${stored.id}`);
      expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
    });

    it('rejects a list without fields, answers 204 for none, and rejects bad uploads', async () => {
      const id = sim.addRecord('Leads');
      const noFields = await call(`/Leads/${id}/Attachments`);
      expect(noFields.status).toBe(400);
      expect(await noFields.json()).toMatchObject({ code: 'REQUIRED_PARAM_MISSING' });

      const none = await call(`/Leads/${id}/Attachments?fields=id`);
      expect(none.status).toBe(204);
      expect(await none.text()).toBe('');

      const unknown = await upload('Leads', '4150868000000000002', makePdf('x'), 'x.pdf');
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ code: 'INVALID_DATA', message: 'the related id given seems to be invalid' });

      sim.maxAttachmentBytes = 100;
      try {
        const tooLarge = await upload('Leads', id, makePdf('big', 200), 'big.pdf');
        expect(tooLarge.status).toBe(413);
        expect(await tooLarge.json()).toEqual({
          code: 'FILE_SIZE_MORE_THAN_ALLOWED_SIZE',
          details: {},
          message: 'Please check if the size of the file is in the correct range',
          status: 'error',
        });
      } finally {
        sim.maxAttachmentBytes = 100 * 1024 * 1024;
      }
    });

    it('takes attachments up to 100 MB (not 20 MB), and answers a missing attachment 404 INVALID_DATA', async () => {
      expect(sim.maxAttachmentBytes).toBe(100 * 1024 * 1024);
      const id = sim.addRecord('Leads');
      const large = await upload('Leads', id, makePdf('large', 21 * 1024 * 1024), 'large.pdf');
      expect(large.status).toBe(200);
      expect(sim.attachmentsOf('Leads', id)[0].size).toBeGreaterThan(20 * 1024 * 1024);

      const missing = await call(`/Leads/${id}/Attachments/4150868000000000009`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ code: 'INVALID_DATA', details: {}, message: 'the id given seems to be invalid', status: 'error' });
    });

    it('answers an empty attachment or note list 204, or 200 with empty data by a switch', async () => {
      const id = sim.addRecord('Leads');
      sim.emptyListStyle = 'empty-data';
      try {
        for (const list of ['Attachments', 'Notes']) {
          const res = await call(`/Leads/${id}/${list}?fields=id&per_page=200`);
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({
            data: [],
            info: { per_page: 200, next_page_token: null, count: 0, page: 1, previous_page_token: null, page_token_expiry: null, more_records: false },
          });
        }
      } finally {
        sim.emptyListStyle = 'no-content';
      }
      expect((await call(`/Leads/${id}/Notes?fields=id`)).status).toBe(204);
    });

    it('paginates attachments with more_records', async () => {
      const id = sim.addRecord('Contacts');
      const accessToken = await token();
      for (const n of [1, 2, 3]) await upload('Contacts', id, makePdf(`f${n}`), `f${n}.pdf`, accessToken);
      const page = async (n: number) =>
        (await (await call(`/Contacts/${id}/Attachments?fields=id,File_Name&per_page=2&page=${n}`, {}, accessToken)).json()) as {
          data: { File_Name: string }[];
          info: { more_records: boolean; count: number };
        };
      const first = await page(1);
      expect(first.data.map((a) => a.File_Name)).toEqual(['f1.pdf', 'f2.pdf']);
      expect(first.info).toMatchObject({ more_records: true, count: 2, page: 1, per_page: 2 });
      const second = await page(2);
      expect(second.data.map((a) => a.File_Name)).toEqual(['f3.pdf']);
      expect(second.info.more_records).toBe(false);
    });

    it('pages attachments by number only up to pageRecordsLimit records, past it by the next_page_token it offers', async () => {
      const id = sim.addRecord('Deals');
      for (let n = 1; n <= 5; n++) sim.addAttachment('Deals', id, `t${n}.pdf`, makePdf(`t${n}`));
      sim.pageRecordsLimit = 4;
      try {
        type Page = { data: { File_Name: string }[]; info: { more_records: boolean; next_page_token?: string; page: number } };
        const list = async (query: string) => call(`/Deals/${id}/Attachments?fields=id,File_Name&per_page=2&${query}`);
        const second = (await (await list('page=2')).json()) as Page;
        expect(second.data.map((n) => n.File_Name)).toEqual(['t3.pdf', 't4.pdf']);
        expect(second.info).toMatchObject({ more_records: true, page: 2, next_page_token: expect.any(String) });
        const refused = await list('page=3');
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({ code: 'DISCRETE_PAGINATION_LIMIT_EXCEEDED', status: 'error' });
        const third = (await (await list(`page_token=${second.info.next_page_token}`)).json()) as Page;
        expect(third.data.map((n) => n.File_Name)).toEqual(['t5.pdf']);
        expect(third.info.more_records).toBe(false);
        expect(third.info.next_page_token).toBeUndefined();
      } finally {
        sim.pageRecordsLimit = 2000;
      }
    });

    it("pages a record's notes by number, as the SDK pages related records: no page_token offered, one sent is refused", async () => {
      const id = sim.addRecord('Deals');
      for (let n = 1; n <= 5; n++) sim.addNoteByHand('Deals', id, `t${n}`, `c${n}`);
      sim.pageRecordsLimit = 4;
      try {
        type Page = { data: { Note_Title: string }[]; info: Record<string, unknown> };
        const list = async (query: string) => call(`/Deals/${id}/Notes?fields=id,Note_Title&per_page=2&${query}`);
        const second = (await (await list('page=2')).json()) as Page;
        expect(second.info).toMatchObject({ more_records: true, page: 2 });
        expect(second.info).not.toHaveProperty('next_page_token');
        const third = (await (await list('page=3')).json()) as Page;
        expect(third.data.map((n) => n.Note_Title)).toEqual(['t5']);
        const token = await list(`page_token=${Buffer.from('2').toString('base64url')}`);
        expect(token.status).toBe(400);
        expect(await token.json()).toMatchObject({ code: 'INVALID_DATA', details: { param_name: 'page_token' } });
      } finally {
        sim.pageRecordsLimit = 2000;
      }
    });

    it('adds a note and reports a bad parent inside data[0]', async () => {
      const id = sim.addRecord('Deals');
      const post = (parentId: string) =>
        call('/Notes', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            data: [{ Note_Title: 'Proposal', Note_Content: 'sent', Parent_Id: { module: { api_name: 'Deals' }, id: parentId } }],
          }),
        });
      const ok = await post(id);
      expect(ok.status).toBe(201);
      const body = (await ok.json()) as { data: [{ details: { id: string } }] };
      expect(body.data[0]).toMatchObject({ code: 'SUCCESS', message: 'record added', status: 'success' });
      expect(sim.notesOf('Deals', id)).toEqual([{ id: body.data[0].details.id, title: 'Proposal', content: 'sent', createdTime: expect.any(String) }]);

      const bad = await post('4150868000000000003');
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({
        data: [
          {
            code: 'INVALID_DATA',
            details: { api_name: 'Parent_Id', json_path: '$.data[0].Parent_Id' },
            message: 'the related id given seems to be invalid',
            status: 'error',
          },
        ],
      });
    });

    it("lists a record's notes (fields mandatory, 204 for none) and attachments added by hand", async () => {
      const id = sim.addRecord('Deals');
      expect((await call(`/Deals/${id}/Notes`)).status).toBe(400);
      expect((await call(`/Deals/${id}/Notes?fields=Note_Title`)).status).toBe(204);
      await call('/Notes', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: [{ Note_Title: 'T', Note_Content: 'C', Parent_Id: { module: { api_name: 'Deals' }, id } }] }),
      });
      const listed = (await (await call(`/Deals/${id}/Notes?fields=Note_Title,Note_Content`)).json()) as { data: unknown[] };
      expect(listed.data).toEqual([{ id: expect.stringMatching(/^\d{19}$/), Note_Title: 'T', Note_Content: 'C' }]);

      const attachmentId = sim.addAttachment('Deals', id, 'by-hand.pdf', makePdf('x'));
      sim.maxPerPage = 1;
      try {
        const page = (await (await call(`/Deals/${id}/Attachments?fields=File_Name&per_page=200`)).json()) as { data: unknown[]; info: { per_page: number } };
        expect(page).toMatchObject({ data: [{ id: attachmentId, File_Name: 'by-hand.pdf' }], info: { per_page: 1 } });
      } finally {
        sim.maxPerPage = 200;
      }
    });

    it('passes injected 429s through', async () => {
      sim.api.injectFault({
        path: /\/crm\/v8\/Deals\//,
        times: 1,
        status: 429,
        body: { code: 'TOO_MANY_REQUESTS', details: {}, message: 'too many requests', status: 'error' },
      });
      const res = await call(`/Deals/${sim.addRecord('Deals')}`);
      expect(res.status).toBe(429);
      expect(await res.json()).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    });
  });

  describe('search (GET /{module}/search, module_search.yaml)', () => {
    const ids: Record<string, string> = {};
    beforeAll(() => {
      ids.deal = sim.addRecord('Deals', undefined, { Deal_Name: 'Search deal (A, B)', Job_Number: 'JN-77', Stage: 'Won' });
      ids.contact = sim.addRecord('Contacts', undefined, { Full_Name: 'Sam Searcher', Email: 'sam@search.example', Mobile: '+1 (512) 555-0142' });
    });
    const found = async (path: string): Promise<string[]> => {
      const res = await call(path);
      if (res.status === 204) return [];
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Array<{ id: string }> }).data.map((r) => r.id);
    };

    it('finds by criteria (equals reads as contains, escaped values), e-mail, phone digits and word', async () => {
      expect(await found(`/Deals/search?criteria=${encodeURIComponent('(Job_Number:equals:JN-77)')}`)).toEqual([ids.deal]);
      expect(await found(`/Deals/search?criteria=${encodeURIComponent('(Deal_Name:equals:deal \\(A\\, B\\))')}`)).toEqual([ids.deal]);
      expect(await found('/Contacts/search?email=sam@search.example')).toEqual([ids.contact]);
      expect(await found(`/Contacts/search?phone=${encodeURIComponent('512-555-0142')}`)).toEqual([ids.contact]);
      expect(await found('/Contacts/search?word=searcher')).toEqual([ids.contact]);
    });

    it('answers 204 with no body when nothing matches, 400 without a search parameter, and for a one-letter word', async () => {
      const none = await call('/Deals/search?word=nothing-like-this');
      expect(none.status).toBe(204);
      expect(await none.text()).toBe('');
      const missing = await call('/Deals/search');
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({ code: 'EXPECTED_PARAM_MISSING' });
      expect((await call('/Deals/search?word=s')).status).toBe(400);
      expect((await call('/Nope/search?word=sam')).status).toBe(400);
    });

    it('returns only the fields asked for, with the id', async () => {
      const res = await call('/Deals/search?word=search&fields=Deal_Name');
      expect(((await res.json()) as { data: unknown[] }).data).toEqual([{ id: ids.deal, Deal_Name: 'Search deal (A, B)' }]);
    });
  });
});
