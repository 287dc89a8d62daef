import { makePdf } from '../common/sim-server.js';
import { ZohoSim } from './index.js';

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

    it('reads a record and answers a missing one in both styles', async () => {
      const id = sim.addRecord('Quotes', undefined, { Subject: 'Q-1001' });
      expect(id).toMatch(/^\d{19}$/);
      expect(await (await call(`/Quotes/${id}`)).json()).toEqual({ data: [{ id, Subject: 'Q-1001' }] });

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

    it('pages by number only up to pageRecordsLimit records, past it by the next_page_token it offers', async () => {
      const id = sim.addRecord('Deals');
      for (let n = 1; n <= 5; n++) sim.addNoteByHand('Deals', id, `t${n}`, `c${n}`);
      sim.pageRecordsLimit = 4;
      try {
        type Page = { data: { Note_Title: string }[]; info: { more_records: boolean; next_page_token?: string; page: number } };
        const list = async (query: string) => call(`/Deals/${id}/Notes?fields=id,Note_Title&per_page=2&${query}`);
        const second = (await (await list('page=2')).json()) as Page;
        expect(second.data.map((n) => n.Note_Title)).toEqual(['t3', 't4']);
        expect(second.info).toMatchObject({ more_records: true, page: 2, next_page_token: expect.any(String) });
        const refused = await list('page=3');
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({ code: 'DISCRETE_PAGINATION_LIMIT_EXCEEDED', status: 'error' });
        const third = (await (await list(`page_token=${second.info.next_page_token}`)).json()) as Page;
        expect(third.data.map((n) => n.Note_Title)).toEqual(['t5']);
        expect(third.info.more_records).toBe(false);
        expect(third.info.next_page_token).toBeUndefined();
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
});
