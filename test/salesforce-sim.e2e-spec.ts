import { createHash } from 'node:crypto';
import { makePdf } from './sim/common/sim-server.js';
import { SalesforceSim } from '../sim/salesforce/index.js';

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
        { i360__Prospect__c: prospect, i360__Sales_Rep_1__c: rep, i360__Job_Number__c: 'J-100%', i360__City__c: 'Austin' },
        new Date('2026-11-26T10:00:00Z'),
      );
      sim.insertRow('i360__Appointment__c', { i360__Job_Number__c: 'J-1000', i360__City__c: 'Boston' }, new Date('2026-11-26T11:00:00Z'));
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
      const like = await query("SELECT i360__Job_Number__c FROM i360__Appointment__c WHERE i360__Job_Number__c LIKE 'J-100\\%'");
      expect(like.body.records.map((r: any) => r.i360__Job_Number__c)).toEqual(['J-100%']);
      const wild = await query(
        "SELECT i360__Job_Number__c FROM i360__Appointment__c WHERE i360__Job_Number__c LIKE 'J-100%' ORDER BY i360__Job_Number__c DESC",
      );
      expect(wild.body.records.map((r: any) => r.i360__Job_Number__c)).toEqual(['J-1000', 'J-100%']);
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
  });
});
