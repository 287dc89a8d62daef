import { createHash } from 'node:crypto';
import { makePdf } from '../../sim/common/sim-server.js';
import { SalesforceSim, SfSchema } from '../../sim/salesforce/index.js';

/** The Salesforce simulator through its HTTP interface, as the adapter sees it. */
describe(SalesforceSim.name, () => {
  const sim = new SalesforceSim();
  const V = '/services/data/v62.0';

  beforeAll(() => sim.start());
  afterAll(() => sim.stop());
  afterEach(() => {
    sim.batchSizeCap = 2000;
    sim.apiEnabled = true;
    sim.setApiUsage(0, 100_000);
    sim.instance.clearFaults();
    sim.clearValidationRules();
  });

  function tokenRequest(fields: Record<string, string>): Promise<Response> {
    return fetch(`${sim.loginUrl}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: sim.clientId, client_secret: sim.clientSecret, ...fields }),
    });
  }

  async function accessToken(refreshToken = sim.refreshToken): Promise<string> {
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  let cached: string | undefined;
  async function call(path: string, init: RequestInit = {}, token?: string): Promise<Response> {
    cached ??= await accessToken();
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token ?? cached}`);
    return fetch(`${sim.instanceUrl}${path}`, { ...init, headers });
  }

  async function query(soql: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const res = await call(`${V}/query?q=${encodeURIComponent(soql)}`, { headers });
    return { status: res.status, body: await res.json() };
  }

  function json(method: string, body: unknown): RequestInit {
    return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }

  describe('OAuth', () => {
    it('runs the web server flow with PKCE: consent page, code and state back, token answer with instance_url and identity', async () => {
      const callback = 'http://127.0.0.1:1/oauth/appointment-crm/callback';
      sim.addRedirectUri(callback);
      const verifier = 'v'.repeat(50);
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const authorize = new URL(`${sim.loginUrl}/services/oauth2/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: sim.clientId,
        redirect_uri: callback,
        state: 's 1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      const page = await fetch(authorize);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<li>api</li>');
      const allowForm = html.slice(html.indexOf('authorize/approve'), html.indexOf('</form>'));
      const form = new URLSearchParams(
        [...allowForm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
          m[1],
          m[2].replace(/&#39;/g, "'").replace(/&#32;/g, ' '),
        ]),
      );
      const decision = await fetch(`${sim.loginUrl}/services/oauth2/authorize/approve`, { method: 'POST', body: form, redirect: 'manual' });
      expect(decision.status).toBe(302);
      const back = new URL(decision.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(callback);
      expect(back.searchParams.get('state')).toBe('s 1');
      const code = back.searchParams.get('code')!;
      expect(code.endsWith('==')).toBe(true);

      const withoutVerifier = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback });
      expect(withoutVerifier.status).toBe(400);
      expect(await withoutVerifier.json()).toEqual({ error: 'invalid_grant', error_description: 'invalid code verifier' });

      const again = await (
        await fetch(`${sim.loginUrl}/services/oauth2/authorize/approve`, { method: 'POST', body: form, redirect: 'manual' })
      ).headers.get('location');
      const code2 = new URL(again!).searchParams.get('code')!;
      const res = await tokenRequest({ grant_type: 'authorization_code', code: code2, redirect_uri: callback, code_verifier: verifier });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as Record<string, string>;
      expect(answer).toEqual({
        access_token: expect.stringContaining('!'),
        refresh_token: expect.any(String),
        signature: expect.any(String),
        scope: 'api refresh_token id',
        instance_url: sim.instanceUrl,
        id: `${sim.loginUrl}/id/${sim.orgId}/${sim.userId}`,
        token_type: 'Bearer',
        issued_at: expect.stringMatching(/^\d{13}$/),
      });
      const identity = await fetch(answer.id, { headers: { authorization: `Bearer ${answer.access_token}` } });
      expect(await identity.json()).toMatchObject({ organization_id: sim.orgId, user_id: sim.userId, display_name: 'Sam Admin', email: 'admin@acme.example' });
      const reused = await tokenRequest({ grant_type: 'authorization_code', code: code2, redirect_uri: callback, code_verifier: verifier });
      expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('refreshes without a new refresh token; a wrong refresh token is invalid_grant', async () => {
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: sim.refreshToken });
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.refresh_token).toBeUndefined();
      expect(body.instance_url).toBe(sim.instanceUrl);
      const wrong = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'nope' });
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toEqual({ error: 'invalid_grant', error_description: 'expired access/refresh token' });
      const basic = await fetch(`${sim.instanceUrl}/services/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: sim.refreshToken }),
      });
      expect(basic.status).toBe(200);
      const org = await query('SELECT Id, Name FROM Organization');
      expect(org.body.records).toEqual([{ attributes: expect.any(Object), Id: sim.orgId, Name: 'Acme Roofing' }]);
    });

    it('answers INVALID_SESSION_ID for an expired token, and for a consent without the api scope', async () => {
      const token = await accessToken();
      sim.expireTokens();
      const expired = await call(`${V}/limits`, {}, token);
      expect(expired.status).toBe(401);
      expect(await expired.json()).toEqual([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
      cached = undefined;
      const noApi = await accessToken(sim.issueRefreshToken(['refresh_token', 'id']));
      const refused = await call(`${V}/limits`, {}, noApi);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual([{ message: 'This session is not valid for use with the REST API', errorCode: 'INVALID_SESSION_ID' }]);
    });

    it('revokes a refresh token and the access tokens it gave', async () => {
      const refresh = sim.issueRefreshToken();
      const token = await accessToken(refresh);
      const res = await fetch(`${sim.loginUrl}/services/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refresh }),
      });
      expect(res.status).toBe(200);
      expect((await call(`${V}/limits`, {}, token)).status).toBe(401);
      expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh })).status).toBe(400);
    });

    it('rotates refresh tokens when the app says so: each refresh answers a new one, and a replaced one presented again revokes the consent', async () => {
      sim.oauth.rotateRefreshTokens = true;
      try {
        const first = sim.issueRefreshToken();
        const answer = (await (await tokenRequest({ grant_type: 'refresh_token', refresh_token: first })).json()) as Record<string, string>;
        expect(answer.refresh_token).toMatch(/^5Aep861/);
        expect(answer.refresh_token).not.toBe(first);
        expect(sim.oauth.isLive(first)).toBe(false);
        // The access token taken before the rotation still works until its session ends.
        expect((await call(`${V}/limits`, {}, answer.access_token)).status).toBe(200);
        const second = (await (await tokenRequest({ grant_type: 'refresh_token', refresh_token: answer.refresh_token })).json()) as Record<string, string>;
        expect(sim.oauth.isLive(second.refresh_token)).toBe(true);
        // The first token again: refused, and the current refresh token and every access token of the consent are revoked.
        const reused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first });
        expect([reused.status, await reused.json()]).toEqual([400, { error: 'invalid_grant', error_description: 'expired access/refresh token' }]);
        expect(sim.oauth.isLive(second.refresh_token)).toBe(false);
        expect((await call(`${V}/limits`, {}, second.access_token)).status).toBe(401);
        expect((await call(`${V}/limits`, {}, answer.access_token)).status).toBe(401);
        expect(sim.oauth.reusedRefreshTokens).toBe(1);
      } finally {
        sim.oauth.rotateRefreshTokens = false;
      }
    });

    it('refuses a session an org policy blocks with a 401 no new token cures', async () => {
      sim.sessionRefusal = 'BlackTab users cannot perform API operations';
      try {
        const token = await accessToken();
        const refused = await call(`${V}/limits`, {}, token);
        expect([refused.status, await refused.json()]).toEqual([
          401,
          [{ message: 'BlackTab users cannot perform API operations', errorCode: 'INVALID_SESSION_ID' }],
        ]);
      } finally {
        sim.sessionRefusal = null;
      }
    });

    it('redirects a denial with access_denied, refuses an unlisted callback, and a verifier that does not match with invalid_request', async () => {
      const callback = 'http://127.0.0.1:1/deny-callback';
      sim.addRedirectUri(callback);
      const params = { response_type: 'code', client_id: sim.clientId, redirect_uri: callback, state: 'xyz' };
      const denied = await fetch(`${sim.loginUrl}/services/oauth2/authorize/deny`, { method: 'POST', body: new URLSearchParams(params), redirect: 'manual' });
      expect(Object.fromEntries(new URL(denied.headers.get('location')!).searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'end-user denied authorization',
        state: 'xyz',
      });
      const unlisted = await fetch(`${sim.loginUrl}/services/oauth2/authorize?${new URLSearchParams({ ...params, redirect_uri: 'http://127.0.0.1:1/other' })}`);
      expect(unlisted.status).toBe(400);
      expect(await unlisted.text()).toContain('redirect_uri_mismatch');

      const challenge = createHash('sha256').update('right-verifier').digest('base64url');
      const approved = await fetch(`${sim.loginUrl}/services/oauth2/authorize/approve`, {
        method: 'POST',
        body: new URLSearchParams({ ...params, code_challenge: challenge }),
        redirect: 'manual',
      });
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
      const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback, code_verifier: 'wrong-verifier' });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'invalid code verifier' });
      expect(sim.consents.map((c) => c.approved)).toEqual(expect.arrayContaining([true, false]));
    });

    it('gives no refresh token and no API access to a consent without those scopes', async () => {
      const callback = 'http://127.0.0.1:1/narrow';
      sim.addRedirectUri(callback);
      const approved = await fetch(`${sim.loginUrl}/services/oauth2/authorize/approve`, {
        method: 'POST',
        body: new URLSearchParams({ response_type: 'code', client_id: sim.clientId, redirect_uri: callback, scope: 'id' }),
        redirect: 'manual',
      });
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
      const answer = (await (await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback })).json()) as Record<string, string>;
      expect(answer.scope).toBe('id');
      expect(answer.refresh_token).toBeUndefined();
      const refused = await call(`${V}/limits`, {}, answer.access_token);
      expect(refused.status).toBe(401);
      const info = await fetch(`${sim.loginUrl}/services/oauth2/userinfo`, { headers: { authorization: `Bearer ${answer.access_token}` } });
      expect(await info.json()).toMatchObject({ organization_id: sim.orgId, user_id: sim.userId, email: 'admin@acme.example' });
    });
  });

  describe('versions and limits', () => {
    it('lists versions without counting the call, and answers NOT_FOUND for an unknown one', async () => {
      const res = await fetch(`${sim.instanceUrl}/services/data/`);
      expect(res.headers.get('sforce-limit-info')).toBeNull();
      expect(await res.json()).toContainEqual({ label: "Winter '25", url: '/services/data/v62.0', version: '62.0' });
      const unknown = await call('/services/data/v12.0/limits');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    });

    it('counts each call in Sforce-Limit-Info and answers REQUEST_LIMIT_EXCEEDED past the allocation', async () => {
      sim.setApiUsage(41, 50);
      const res = await call(`${V}/limits`);
      expect(res.headers.get('sforce-limit-info')).toBe('api-usage=42/50');
      expect(await res.json()).toEqual({ DailyApiRequests: { Max: 50, Remaining: 8 } });
      sim.setApiUsage(50, 50);
      const refused = await call(`${V}/limits`);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual([{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);
    });

    it('answers API_DISABLED_FOR_ORG when the org has no API access', async () => {
      sim.apiEnabled = false;
      const res = await call(`${V}/sobjects`);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual([{ message: 'API is not enabled for this Organization or Partner', errorCode: 'API_DISABLED_FOR_ORG' }]);
    });

    it('runs at most 25 long requests at once, refusing one more with REQUEST_LIMIT_EXCEEDED', async () => {
      await call(`${V}/limits`);
      sim.maxInFlight = 0;
      const release = sim.holdRequests();
      const answers = Array.from({ length: 25 }, () => call(`${V}/limits`));
      while (sim.inFlight < 25) await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = await call(`${V}/limits`);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual([{ message: 'ConcurrentPerOrgLongTxn Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);
      release();
      expect((await Promise.all(answers)).map((r) => r.status)).toEqual(Array(25).fill(200));
      expect(sim.maxInFlight).toBe(26);
    });

    it('allows a Developer Edition org 5 long requests at once, and a trial org 5', async () => {
      await call(`${V}/limits`);
      expect(sim.longRequestLimit).toBe(25);
      sim.makeDeveloperOrg();
      try {
        expect(sim.longRequestLimit).toBe(5);
        const org = await query('SELECT OrganizationType, IsSandbox, TrialExpirationDate FROM Organization');
        expect(org.body.records[0]).toMatchObject({ OrganizationType: 'Developer Edition', IsSandbox: false, TrialExpirationDate: null });
        const release = sim.holdRequests();
        const answers = Array.from({ length: 5 }, () => call(`${V}/limits`));
        while (sim.inFlight < 5) await new Promise((resolve) => setTimeout(resolve, 10));
        const refused = await call(`${V}/limits`);
        expect(refused.status).toBe(403);
        release();
        expect((await Promise.all(answers)).map((r) => r.status)).toEqual(Array(5).fill(200));
      } finally {
        sim.updateRow('Organization', sim.orgId, { OrganizationType: 'Enterprise Edition' });
      }
      sim.makeDeveloperOrg('trial');
      try {
        expect(sim.longRequestLimit).toBe(5);
      } finally {
        sim.updateRow('Organization', sim.orgId, { TrialExpirationDate: null });
      }
    });

    it('answers UNABLE_TO_LOCK_ROW to a write on a locked record, or naming it in a lookup, and lets it through once unlocked', async () => {
      const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Lock Test' });
      const appointment = sim.insertRow('i360__Appointment__c', { i360__Prospect__c: prospect });
      sim.lockedRecords.add(appointment);
      try {
        const patch = await call(`${V}/sobjects/i360__Appointment__c/${appointment}`, json('PATCH', { i360__Result__c: 'Sold' }));
        expect([patch.status, await patch.json()]).toEqual([
          400,
          [{ message: 'unable to obtain exclusive access to this record or 1 records', errorCode: 'UNABLE_TO_LOCK_ROW', fields: [] }],
        ]);
        const sale = await call(
          `${V}/composite/sobjects`,
          json('POST', { allOrNone: true, records: [{ attributes: { type: 'i360__Sale__c' }, i360__Appointment__c: appointment }] }),
        );
        expect(await sale.json()).toEqual([
          {
            success: false,
            errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW', message: 'unable to obtain exclusive access to this record or 1 records', fields: [] }],
          },
        ]);
        expect((await call(`${V}/sobjects/i360__Appointment__c/${appointment}`)).status).toBe(200);
      } finally {
        sim.lockedRecords.clear();
      }
      expect((await call(`${V}/sobjects/i360__Appointment__c/${appointment}`, json('PATCH', { i360__Result__c: 'Sold' }))).status).toBe(204);
      // The later tests count the org's appointments.
      expect((await call(`${V}/sobjects/i360__Appointment__c/${appointment}`, { method: 'DELETE' })).status).toBe(204);
    });

    it('keeps a late commit out of every query until it commits, stamped with the time its transaction started', async () => {
      const startedAt = new Date(Date.now() - 5_000);
      const id = sim.commitLate('i360__Prospect__c', { Name: 'Late Lee' }, { stampedAt: startedAt, visibleInMs: 400 });
      const soql = `SELECT Id, SystemModstamp FROM i360__Prospect__c WHERE Id = '${id}'`;
      expect((await query(soql)).body.records).toEqual([]);
      const deadline = Date.now() + 5_000;
      let rows: Array<Record<string, unknown>> = [];
      while (rows.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        rows = (await query(soql)).body.records;
      }
      expect(rows).toEqual([expect.objectContaining({ Id: id, SystemModstamp: SalesforceSim.dateTime(startedAt) })]);
    });

    it('injects faults like the other simulators: a 503 with Retry-After, then the real answer', async () => {
      sim.instance.injectFault({ path: `${V}/limits`, times: 1, status: 503, retryAfterSeconds: 2 });
      const first = await call(`${V}/limits`);
      expect([first.status, first.headers.get('retry-after')]).toEqual([503, '2']);
      expect((await call(`${V}/limits`)).status).toBe(200);
    });
  });

  describe('query', () => {
    let prospect: string;
    let rep: string;
    beforeAll(() => {
      prospect = sim.insertRow('i360__Prospect__c', {
        i360__Primary_First_Name__c: "O'Brien",
        i360__Primary_Last_Name__c: 'Back\\slash',
        i360__Primary_Email__c: 'ob@example.com',
        i360__Phone_1__c: '555-0100',
      });
      rep = sim.insertRow('i360__Staff__c', { Name: 'Rita Rep', i360__Email__c: 'rita@acme.example' });
      sim.insertRow(
        'i360__Appointment__c',
        { i360__Prospect__c: prospect, i360__Sales_Rep_1__c: rep, i360__County__c: 'J-100%', i360__City__c: 'Austin' },
        new Date('2026-11-26T10:00:00Z'),
      );
      sim.insertRow('i360__Appointment__c', { i360__County__c: 'J-1000', i360__City__c: 'Boston' }, new Date('2026-11-26T11:00:00Z'));
    });

    it('reads relationship fields in one query, with attributes', async () => {
      const { status, body } = await query(
        "SELECT Id, Name, i360__Prospect__r.i360__Primary_Email__c, i360__Prospect__r.i360__Primary_First_Name__c, i360__Sales_Rep_1__r.Name FROM i360__Appointment__c WHERE i360__City__c = 'austin'",
      );
      expect(status).toBe(200);
      expect(body).toMatchObject({ totalSize: 1, done: true });
      const [record] = body.records;
      expect(record.attributes).toEqual({ type: 'i360__Appointment__c', url: `${V}/sobjects/i360__Appointment__c/${record.Id}` });
      expect(record.Id).toMatch(/^a0A\w{15}$/);
      expect(record.i360__Prospect__r).toEqual({
        attributes: { type: 'i360__Prospect__c', url: `${V}/sobjects/i360__Prospect__c/${prospect}` },
        i360__Primary_Email__c: 'ob@example.com',
        i360__Primary_First_Name__c: "O'Brien",
      });
      expect(record.i360__Sales_Rep_1__r.Name).toBe('Rita Rep');
    });

    it('reads escaped quotes and backslashes, and \\% in LIKE as a literal percent', async () => {
      const quoted = await query(
        "SELECT Id FROM i360__Prospect__c WHERE i360__Primary_First_Name__c = 'O\\'Brien' AND i360__Primary_Last_Name__c = 'Back\\\\slash'",
      );
      expect(quoted.body.totalSize).toBe(1);
      const like = await query("SELECT i360__County__c FROM i360__Appointment__c WHERE i360__County__c LIKE 'J-100\\%'");
      expect(like.body.records.map((r: any) => r.i360__County__c)).toEqual(['J-100%']);
      const wild = await query("SELECT i360__County__c FROM i360__Appointment__c WHERE i360__County__c LIKE 'J-100%' ORDER BY i360__County__c DESC");
      expect(wild.body.records.map((r: any) => r.i360__County__c)).toEqual(['J-1000', 'J-100%']);
      const bad = await query("SELECT Id FROM i360__Prospect__c WHERE Name = 'a\\%'");
      expect(bad.status).toBe(400);
      expect(bad.body[0].errorCode).toBe('MALFORMED_QUERY');
    });

    it('filters datetimes by literal, refuses a quoted datetime and AND mixed with OR', async () => {
      const later = await query('SELECT Id FROM i360__Appointment__c WHERE SystemModstamp > 2026-11-26T10:00:00Z');
      expect(later.body.totalSize).toBe(1);
      const quoted = await query("SELECT Id FROM i360__Appointment__c WHERE SystemModstamp > '2026-11-26T10:00:00Z'");
      expect(quoted.status).toBe(400);
      expect(quoted.body[0].errorCode).toBe('INVALID_FIELD');
      const mixed = await query("SELECT Id FROM i360__Appointment__c WHERE Name = 'a' AND Name = 'b' OR Name = 'c'");
      expect(mixed.body[0].errorCode).toBe('MALFORMED_QUERY');
      const unknown = await query('SELECT Nope__c FROM i360__Appointment__c');
      expect(unknown.body[0]).toMatchObject({ errorCode: 'INVALID_FIELD' });
    });

    it('pages with nextRecordsUrl: 2,000 by default, Sforce-Query-Options batchSize from 200, and smaller batches when the org chooses', async () => {
      for (let i = 0; i < 450; i++) sim.insertRow('i360__Product__c', { Name: `Product ${String(i).padStart(3, '0')}` });
      const first = await query('SELECT Name FROM i360__Product__c ORDER BY Name', { 'sforce-query-options': 'batchSize=100' });
      expect(first.body).toMatchObject({ totalSize: 450, done: false, nextRecordsUrl: expect.stringMatching(/^\/services\/data\/v62\.0\/query\/01g\w+-200$/) });
      expect(first.body.records).toHaveLength(200);
      const names: string[] = first.body.records.map((r: any) => r.Name);
      let next: string | undefined = first.body.nextRecordsUrl;
      while (next) {
        const page = (await (await call(next)).json()) as any;
        expect(page.totalSize).toBe(450);
        names.push(...page.records.map((r: any) => r.Name));
        next = page.nextRecordsUrl;
      }
      expect(names).toEqual(Array.from({ length: 450 }, (_, i) => `Product ${String(i).padStart(3, '0')}`));
      const whole = await query('SELECT Id FROM i360__Product__c');
      expect(whole.body).toMatchObject({ totalSize: 450, done: true });
      expect(whole.body.nextRecordsUrl).toBeUndefined();

      sim.batchSizeCap = 7;
      const small = await query("SELECT Name FROM i360__Product__c WHERE Name LIKE 'Product 00_'");
      expect([small.body.records.length, small.body.done, small.body.totalSize]).toEqual([7, false, 10]);
      const rest = (await (await call(small.body.nextRecordsUrl)).json()) as any;
      expect([rest.records.length, rest.done]).toEqual([3, true]);
      const again = (await (await call(small.body.nextRecordsUrl)).json()) as any;
      expect(again.records).toEqual(rest.records);
      // A user holds at most 10 cursors: ten more queries of several batches release this one.
      for (let i = 0; i < 10; i++) await query("SELECT Name FROM i360__Product__c WHERE Name LIKE 'Product 00_'");
      const released = await call(small.body.nextRecordsUrl);
      expect([released.status, await released.json()]).toEqual([400, [{ errorCode: 'INVALID_QUERY_LOCATOR', message: 'invalid query locator' }]]);
    });

    it('reads a keyset on SystemModstamp and Id, IN and NOT IN, COUNT(), NULLS LAST and OFFSET', async () => {
      const at = new Date('2026-11-27T08:00:00Z');
      const ids = [0, 1, 2].map((i) => sim.insertRow('i360__Staff__c', { Name: `Keyset ${i}`, i360__Email__c: i === 1 ? null : `k${i}@acme.example` }, at));
      const sorted = [...ids].sort();
      const keyset = await query(
        `SELECT Id FROM i360__Staff__c WHERE Name LIKE 'keyset%' AND (SystemModstamp > 2026-11-27T08:00:00.000+0000 OR (SystemModstamp = 2026-11-27T08:00:00.000+0000 AND Id > '${sorted[0]}')) ORDER BY SystemModstamp, Id`,
      );
      expect(keyset.body.records.map((r: any) => r.Id)).toEqual(sorted.slice(1));
      const inList = await query(`SELECT Name FROM i360__Staff__c WHERE Id IN ('${ids[0]}', '${ids[2].slice(0, 15)}') ORDER BY Name DESC`);
      expect(inList.body.records.map((r: any) => r.Name)).toEqual(['Keyset 2', 'Keyset 0']);
      const notIn = await query(`SELECT COUNT() FROM i360__Staff__c WHERE Name LIKE 'Keyset%' AND Id NOT IN ('${ids[0]}')`);
      expect(notIn.body).toEqual({ totalSize: 2, done: true, records: [] });
      const nulls = await query("SELECT Name FROM i360__Staff__c WHERE Name LIKE 'Keyset%' ORDER BY i360__Email__c NULLS LAST, Name LIMIT 2 OFFSET 1");
      expect(nulls.body.records.map((r: any) => r.Name)).toEqual(['Keyset 2', 'Keyset 1']);
      const badId = await query("SELECT Id FROM i360__Staff__c WHERE Id = 'abc'");
      expect(badId.body).toEqual([{ errorCode: 'INVALID_QUERY_FILTER_OPERATOR', message: 'invalid ID field: abc' }]);
    });

    it('queryAll reads the Recycle Bin too: a deleted row with IsDeleted true and its delete stamped, its parent through a relationship; none once it is emptied', async () => {
      const appointment = sim.insertRow('i360__Appointment__c', { i360__City__c: 'Recycle' });
      const deletedAt = new Date(Date.now() - 60_000);
      const sale = sim.insertRow('i360__Sale__c', { i360__Appointment__c: appointment, i360__Sold_Price__c: 10 }, new Date(deletedAt.getTime() - 3_600_000));
      const person = sim.personEdits('i360__Sale__c', sale, null, deletedAt);
      const soql = `SELECT Id, IsDeleted, SystemModstamp, LastModifiedById, i360__Appointment__r.i360__City__c FROM i360__Sale__c WHERE i360__Appointment__c = '${appointment}'`;
      expect((await query(soql)).body).toMatchObject({ totalSize: 0 });
      expect((await query(`${soql} AND IsDeleted = true`)).body).toMatchObject({ totalSize: 0 });
      const all = async (q: string) => (await (await call(`${V}/queryAll?q=${encodeURIComponent(q)}`)).json()) as any;
      const found = await all(`${soql} AND SystemModstamp >= ${new Date(deletedAt.getTime() - 1000).toISOString()}`);
      expect(found).toMatchObject({ totalSize: 1, done: true });
      expect(found.records[0]).toMatchObject({
        Id: sale,
        IsDeleted: true,
        SystemModstamp: SalesforceSim.dateTime(deletedAt),
        LastModifiedById: person,
        i360__Appointment__r: { i360__City__c: 'Recycle' },
      });
      const read = await call(`${V}/sobjects/i360__Sale__c/${sale}`);
      expect([read.status, ((await read.json()) as any)[0].errorCode]).toEqual([404, 'ENTITY_IS_DELETED']);
      sim.emptyRecycleBin();
      expect(await all(soql)).toMatchObject({ totalSize: 0, done: true });
    });
  });

  describe('sObjects', () => {
    it('describes an object with its field types, references and pick list', async () => {
      const res = await call(`${V}/sobjects/i360__Appointment__c/describe`);
      const body = (await res.json()) as any;
      expect(res.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/100000$/);
      const byName = Object.fromEntries(body.fields.map((f: any) => [f.name, f]));
      expect(byName.i360__Prospect__c).toMatchObject({ type: 'reference', referenceTo: ['i360__Prospect__c'], relationshipName: 'i360__Prospect__r' });
      expect(byName.i360__Result__c.picklistValues).toContainEqual({ value: 'Sold', label: 'Sold', active: true, defaultValue: false, validFor: null });
      expect(byName.SystemModstamp).toMatchObject({ type: 'datetime', createable: false, updateable: false });
    });

    it('reads a row with ?fields=, patches it (204) and moves SystemModstamp; a bad pick list value is refused', async () => {
      const id = sim.insertRow('i360__Appointment__c', { i360__City__c: 'Dallas' }, new Date('2026-01-01T00:00:00Z'));
      const before = (await (await call(`${V}/sobjects/i360__Appointment__c/${id}?fields=i360__City__c,SystemModstamp`)).json()) as any;
      expect(before).toEqual({ attributes: expect.any(Object), i360__City__c: 'Dallas', SystemModstamp: '2026-01-01T00:00:00.000+0000' });
      const patched = await call(`${V}/sobjects/i360__Appointment__c/${id}`, json('PATCH', { i360__Result__c: 'Sold' }));
      expect(patched.status).toBe(204);
      expect(sim.row('i360__Appointment__c', id)).toMatchObject({ i360__Result__c: 'Sold', SystemModstamp: expect.stringMatching(/^20\d\d-.*\.000\+0000$/) });
      expect(sim.row('i360__Appointment__c', id)!.SystemModstamp).not.toBe('2026-01-01T00:00:00.000+0000');
      const bad = await call(`${V}/sobjects/i360__Appointment__c/${id}`, json('PATCH', { i360__Result__c: 'Sold!' }));
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual([
        { errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: expect.stringContaining('Sold!'), fields: ['i360__Result__c'] },
      ]);
    });

    it('creates with POST (201) and refuses missing required fields, unknown and read-only fields, and a failed validation rule', async () => {
      const sale = await call(`${V}/sobjects/i360__Sale__c`, json('POST', { i360__Sold_Price__c: 1200.5 }));
      expect(sale.status).toBe(201);
      const { id } = (await sale.json()) as { id: string };
      expect(sim.row('i360__Sale__c', id)).toMatchObject({
        i360__Sold_Price__c: 1200.5,
        Name: expect.stringMatching(/^S-\d{6}$/),
        CreatedDate: expect.stringMatching(/\.000\+0000$/),
      });

      const missing = await call(`${V}/sobjects/i360__Sale_Item__c`, json('POST', { i360__Sale__c: id }));
      expect(missing.status).toBe(400);
      expect(await missing.json()).toEqual([
        { errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [i360__Quantity__c]', fields: ['i360__Quantity__c'] },
      ]);
      const unknown = await call(`${V}/sobjects/i360__Sale__c/${id}`, json('PATCH', { Nope__c: 1 }));
      expect(((await unknown.json()) as any)[0].errorCode).toBe('INVALID_FIELD');
      const readOnly = await call(`${V}/sobjects/i360__Sale__c/${id}`, json('PATCH', { SystemModstamp: '2026-01-01T00:00:00.000+0000' }));
      expect(((await readOnly.json()) as any)[0]).toMatchObject({ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['SystemModstamp'] });

      sim.addValidationRule({
        object: 'i360__Sale__c',
        message: 'Amount must be positive',
        errorField: 'i360__Sold_Price__c',
        failsWhen: (row) => Number(row.i360__Sold_Price__c) <= 0,
      });
      const invalid = await call(`${V}/sobjects/i360__Sale__c/${id}`, json('PATCH', { i360__Sold_Price__c: -1 }));
      expect(await invalid.json()).toEqual([
        { errorCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'Amount must be positive', fields: ['i360__Sold_Price__c'] },
      ]);
      expect(sim.row('i360__Sale__c', id)!.i360__Sold_Price__c).toBe(1200.5);
      const note = await call(`${V}/sobjects/Note`, json('POST', { ParentId: id, Title: 'Called', Body: "It's sold" }));
      expect(note.status).toBe(201);
      const notes = await query(`SELECT Title, Body, Parent.Name FROM Note WHERE ParentId = '${id}'`);
      expect(notes.body.records).toEqual([
        { attributes: expect.any(Object), Title: 'Called', Body: "It's sold", Parent: { attributes: expect.any(Object), Name: expect.stringMatching(/^S-/) } },
      ]);
      const absent = await call(`${V}/sobjects/i360__Sale__c/${id.slice(0, 12)}AAA`);
      expect(absent.status).toBe(404);
      expect((await call(`${V}/sobjects/i360__Sale__c/${id}`, { method: 'DELETE' })).status).toBe(204);
      expect(sim.row('i360__Sale__c', id)).toBeUndefined();
      const again = await call(`${V}/sobjects/i360__Sale__c/${id}`, { method: 'DELETE' });
      expect([again.status, await again.json()]).toEqual([404, [{ errorCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }]]);
    });

    it('creates a sale and its items in one composite/sobjects call; with allOrNone one bad item rolls every record back', async () => {
      const appointment = sim.insertRow('i360__Appointment__c', {});
      const sale = sim.insertRow('i360__Sale__c', { i360__Appointment__c: appointment });
      const items = [
        { attributes: { type: 'i360__Sale_Item__c' }, i360__Sale__c: sale, i360__Quantity__c: 2, i360__Price__c: 10 },
        { attributes: { type: 'i360__Sale_Item__c' }, i360__Sale__c: sale, i360__Price__c: 5 },
      ];
      const before = sim.rows('i360__Sale_Item__c').length;
      const rolledBack = await call(`${V}/composite/sobjects`, json('POST', { allOrNone: true, records: items }));
      expect(rolledBack.status).toBe(200);
      expect(await rolledBack.json()).toEqual([
        { success: false, errors: [{ statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK', message: expect.stringContaining('rolled back'), fields: [] }] },
        {
          success: false,
          errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [i360__Quantity__c]', fields: ['i360__Quantity__c'] }],
        },
      ]);
      expect(sim.rows('i360__Sale_Item__c')).toHaveLength(before);

      const partial = (await (await call(`${V}/composite/sobjects`, json('POST', { allOrNone: false, records: items }))).json()) as any[];
      expect(partial.map((r) => r.success)).toEqual([true, false]);
      expect(sim.rows('i360__Sale_Item__c')).toHaveLength(before + 1);

      const update = (await (
        await call(
          `${V}/composite/sobjects`,
          json('PATCH', { allOrNone: true, records: [{ attributes: { type: 'i360__Sale_Item__c' }, id: partial[0].id, i360__Quantity__c: 3 }] }),
        )
      ).json()) as any[];
      expect(update).toEqual([{ id: partial[0].id, success: true, errors: [] }]);
      expect(sim.row('i360__Sale_Item__c', partial[0].id)!.i360__Quantity__c).toBe(3);
      const removed = (await (await call(`${V}/composite/sobjects?ids=${partial[0].id},${sale}&allOrNone=true`, { method: 'DELETE' })).json()) as any[];
      expect(removed).toEqual([
        { id: partial[0].id, success: true, errors: [] },
        { id: sale, success: true, errors: [] },
      ]);
      const rolledBackDelete = (await (await call(`${V}/composite/sobjects?ids=${appointment},${sale}&allOrNone=true`, { method: 'DELETE' })).json()) as any[];
      expect(rolledBackDelete.map((r) => r.errors[0].statusCode)).toEqual(['ALL_OR_NONE_OPERATION_ROLLED_BACK', 'ENTITY_IS_DELETED']);
      expect(sim.row('i360__Appointment__c', appointment)).toBeDefined();

      const tooMany = await call(`${V}/composite/sobjects`, json('POST', { records: Array.from({ length: 201 }, () => items[0]) }));
      expect(tooMany.status).toBe(400);
      expect(((await tooMany.json()) as any)[0].errorCode).toBe('EXCEEDED_ID_LIMIT');
    });
  });

  describe('files', () => {
    it('takes a multipart ContentVersion linked to the record, queryable through ContentDocumentLink', async () => {
      const appointment = sim.insertRow('i360__Appointment__c', {});
      const pdf = makePdf('drawing-1');
      const form = new FormData();
      form.append(
        'entity_content',
        new Blob([JSON.stringify({ PathOnClient: 'drawing-1.pdf', Title: 'Drawing 1', FirstPublishLocationId: appointment })], { type: 'application/json' }),
      );
      form.append('VersionData', new Blob([pdf], { type: 'application/pdf' }), 'drawing-1.pdf');
      const res = await call(`${V}/sobjects/ContentVersion`, { method: 'POST', body: form });
      expect(res.status).toBe(201);
      const created = (await res.json()) as { id: string };
      expect(created).toEqual({ id: expect.stringMatching(/^068/), success: true, errors: [] });
      expect(sim.filesOf(appointment).map((f) => [f.title, f.bytes.equals(pdf)])).toEqual([['Drawing 1', true]]);
      const links = await query(
        `SELECT ContentDocumentId, ContentDocument.Title, ContentDocument.CreatedDate FROM ContentDocumentLink WHERE LinkedEntityId = '${appointment}'`,
      );
      expect(links.body.records).toEqual([
        expect.objectContaining({
          ContentDocumentId: expect.stringMatching(/^069/),
          ContentDocument: expect.objectContaining({ Title: 'Drawing 1', CreatedDate: expect.any(String) }),
        }),
      ]);
      const bytes = await call(`${V}/sobjects/ContentVersion/${created.id}/VersionData`);
      expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
    });
    it('takes JSON with base64 VersionData as a new version of a document; deleting the document removes its versions and links', async () => {
      const appointment = sim.insertRow('i360__Appointment__c', {});
      const first = sim.addFile(appointment, 'proposal.pdf', makePdf('v1'));
      const documentId = String(sim.row('ContentVersion', first)!.ContentDocumentId);
      const v2 = makePdf('v2');
      const res = await call(
        `${V}/sobjects/ContentVersion`,
        json('POST', { ContentDocumentId: documentId, PathOnClient: 'proposal.pdf', VersionData: v2.toString('base64') }),
      );
      expect(res.status).toBe(201);
      const files = sim.filesOf(appointment);
      expect(files).toHaveLength(1);
      expect(files[0].bytes.equals(v2)).toBe(true);
      const versions = await query(`SELECT Id, VersionNumber, IsLatest FROM ContentVersion WHERE ContentDocumentId = '${documentId}' ORDER BY VersionNumber`);
      expect(versions.body.records.map((r: any) => [r.VersionNumber, r.IsLatest])).toEqual([
        ['1', false],
        ['2', true],
      ]);
      const unfiltered = await query('SELECT Id FROM ContentDocumentLink');
      expect(unfiltered.body[0]).toMatchObject({ errorCode: 'MALFORMED_QUERY', message: expect.stringContaining('Implementation restriction') });

      expect((await call(`${V}/sobjects/ContentDocument/${documentId}`, { method: 'DELETE' })).status).toBe(204);
      expect(sim.filesOf(appointment)).toEqual([]);
      expect(sim.rows('ContentVersion').filter((v) => v.ContentDocumentId === documentId)).toEqual([]);
      const links = await query(`SELECT Id FROM ContentDocumentLink WHERE ContentDocumentId = '${documentId}'`);
      expect(links.body.totalSize).toBe(0);
    });
  });

  describe('schema', () => {
    it('is data a test changes: a removed field leaves describe and queries, a field made required is enforced', async () => {
      const own = new SalesforceSim();
      await own.start();
      try {
        const token = (await (
          await fetch(`${own.loginUrl}/services/oauth2/token`, {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              client_id: own.clientId,
              client_secret: own.clientSecret,
              refresh_token: own.refreshToken,
            }),
          })
        ).json()) as { access_token: string };
        const ownCall = (path: string, init: RequestInit = {}) =>
          fetch(`${own.instanceUrl}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${token.access_token}` } });
        own.schema.removeField('i360__Appointment__c', 'i360__County__c');
        own.schema.makeRequired('i360__Appointment__c', 'i360__City__c');
        const described = (await (await ownCall(`${V}/sobjects/i360__Appointment__c/describe`)).json()) as any;
        const names = described.fields.map((f: any) => f.name);
        expect(names).not.toContain('i360__County__c');
        expect(described.fields.find((f: any) => f.name === 'i360__City__c')).toMatchObject({ nillable: false, defaultedOnCreate: false });
        const queried = await ownCall(`${V}/query?q=${encodeURIComponent('SELECT i360__County__c FROM i360__Appointment__c')}`);
        expect(((await queried.json()) as any)[0].errorCode).toBe('INVALID_FIELD');
        const created = await ownCall(`${V}/sobjects/i360__Appointment__c`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(((await created.json()) as any)[0]).toMatchObject({ errorCode: 'REQUIRED_FIELD_MISSING', fields: ['i360__City__c'] });
        const id = own.insertRow('i360__Appointment__c', { i360__City__c: 'Reno' });
        own.renameField('i360__Appointment__c', 'i360__City__c', 'i360__Town__c');
        expect(own.row('i360__Appointment__c', id)).toMatchObject({ i360__Town__c: 'Reno' });
      } finally {
        await own.stop();
      }
    });

    it("works out a Lightning appointment's Contact name and e-mail from its Contact when read, and refuses to write them", async () => {
      const lightning = new SalesforceSim({ schema: 'i360core__' });
      await lightning.start();
      try {
        const account = lightning.insertRow('Account', { Name: 'Ruiz household', Phone: '512-555-0100' });
        const contact = lightning.insertRow('Contact', { AccountId: account, FirstName: 'Ana', LastName: 'Ruiz', Email: 'ana@example.com' });
        const id = lightning.insertRow('i360core__Appointment__c', { i360core__Account__c: account, i360core__Contact__c: contact });
        const token = (await (
          await fetch(`${lightning.loginUrl}/services/oauth2/token`, {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              client_id: lightning.clientId,
              client_secret: lightning.clientSecret,
              refresh_token: lightning.refreshToken,
            }),
          })
        ).json()) as { access_token: string };
        const call = (path: string, init: RequestInit = {}) =>
          fetch(`${lightning.instanceUrl}${path}`, {
            ...init,
            headers: { ...init.headers, authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
          });
        const soql = 'SELECT i360core__Contact_Name__c, i360core__Contact_Email__c, i360core__Account__r.Phone FROM i360core__Appointment__c';
        const read = (await (await call(`${V}/query?q=${encodeURIComponent(soql)}`)).json()) as any;
        expect(read.records[0]).toMatchObject({
          i360core__Contact_Name__c: 'Ana Ruiz',
          i360core__Contact_Email__c: 'ana@example.com',
          i360core__Account__r: { Phone: '512-555-0100' },
        });
        lightning.updateRow('Contact', contact, { Email: 'ana.ruiz@example.com' });
        const again = (await (await call(`${V}/sobjects/i360core__Appointment__c/${id}?fields=i360core__Contact_Email__c`)).json()) as any;
        expect(again.i360core__Contact_Email__c).toBe('ana.ruiz@example.com');
        const written = await call(`${V}/sobjects/i360core__Appointment__c/${id}`, {
          method: 'PATCH',
          body: JSON.stringify({ i360core__Contact_Name__c: 'X' }),
        });
        expect(written.status).toBe(400);
        expect(((await written.json()) as any)[0].errorCode).toBe('INVALID_FIELD_FOR_INSERT_UPDATE');
        const described = (await (await call(`${V}/sobjects/i360core__Appointment__c/describe`)).json()) as any;
        expect(described.fields.find((f: any) => f.name === 'i360core__Contact_Name__c')).toMatchObject({ calculated: true });
      } finally {
        await lightning.stop();
      }
    });

    it("keeps the classic appointment's start as a date (a date literal filters it, a date-time one is refused) and lists classic Attachments", async () => {
      const id = sim.insertRow('i360__Appointment__c', { i360__Start__c: '2026-12-03', i360__Start_Time__c: '10:00 AM', i360__City__c: 'Datetown' });
      const byDate = await query("SELECT Id, i360__Start_Time__c FROM i360__Appointment__c WHERE i360__Start__c >= 2026-12-01 AND i360__City__c = 'Datetown'");
      expect(byDate.body.records.map((r: any) => r.Id)).toEqual([id]);
      const byDateTime = await query('SELECT Id FROM i360__Appointment__c WHERE i360__Start__c >= 2026-12-01T00:00:00Z');
      expect(byDateTime.status).toBe(400);
      expect(byDateTime.body[0].errorCode).toBe('INVALID_FIELD');
      // A date field takes YYYY-MM-DD only (REST API Developer Guide, "Valid Date and DateTime Formats").
      const wrongDate = await call(`${V}/sobjects/i360__Appointment__c/${id}`, json('PATCH', { i360__Start__c: '2026-12-03T10:00:00Z' }));
      expect(wrongDate.status).toBe(400);
      expect(((await wrongDate.json()) as any)[0]).toMatchObject({ errorCode: 'JSON_PARSER_ERROR', fields: ['i360__Start__c'] });
      expect(sim.schema.field('i360__Appointment__c', 'i360__Job_Number__c')).toBeUndefined();
      expect(sim.schema.field('i360__Sale__c', 'i360__Sold_Price__c')).toMatchObject({ type: 'currency' });
      const attachment = sim.addAttachment(id, 'proposal.pdf', Buffer.from('%PDF-1.4'));
      const listed = await query(`SELECT Id, Name, CreatedDate FROM Attachment WHERE ParentId = '${id}'`);
      expect(listed.body.records).toEqual([expect.objectContaining({ Id: attachment, Name: 'proposal.pdf' })]);
    });

    it('offers the Lightning names and the daemon environment for them', () => {
      const lightning = new SalesforceSim({ schema: 'i360core__' });
      expect(lightning.schema.object('i360core__Appointment__c')).toBeDefined();
      expect(lightning.schema.object('i360__Appointment__c')).toBeUndefined();
      // Lightning keeps the customer in standard Account and Contact: no Prospect object.
      expect(lightning.schema.object('i360core__Prospect__c')).toBeUndefined();
      expect(lightning.schema.field('i360core__Appointment__c', 'i360core__Account__c')).toMatchObject({
        relationshipName: 'i360core__Account__r',
        referenceTo: ['Account'],
      });
      expect(lightning.schema.field('i360core__Appointment__c', 'i360core__Contact_Name__c')).toMatchObject({ createable: false, updateable: false });
      const custom = new SalesforceSim({
        schema: new SfSchema(
          SfSchema.improveit360()
            .all()
            .filter((o) => o.name !== 'i360__Sale_Item__c'),
        ),
      });
      expect(custom.schema.object('i360__Sale_Item__c')).toBeUndefined();
      expect(sim.daemonEnv()).toEqual(sim.envFor());
      expect(sim.envFor()).toEqual({
        APPOINTMENT_CRM_KIND: 'salesforce',
        APPOINTMENT_CRM_LOGIN_URL: sim.loginUrl,
        APPOINTMENT_CRM_CLIENT_ID: sim.clientId,
        APPOINTMENT_CRM_CLIENT_SECRET: sim.clientSecret,
        APPOINTMENT_CRM_REFRESH_TOKEN: sim.refreshToken,
        APPOINTMENT_CRM_PRESET: 'improveit360-classic',
        APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS: 'true',
      });
    });
  });
});
