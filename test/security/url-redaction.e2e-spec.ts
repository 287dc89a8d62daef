import { ADMIN_TOKEN, startHarness, type Harness } from '../support/harness.js';

type Json = any;

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const PROJECT_ID = '36029621652695017123';
const SIGNATURE = 'X-Amz-Signature=5ec7e7';
const PDF_URL = `https://files.example.com/d/1.pdf?X-Amz-Credential=AKIA&${SIGNATURE}`;
const PNG_URL = 'https://user:pa55w0rd@cdn.example.com/d/1.png?token=t0k3n';
// As the service sends it: a long id as a bare number, slashes escaped, spacing of its own.
const RAW = `{"event":"drawing.created","data":{"project_id":${PROJECT_ID}, "drawing":{"id":36029621652695017999,"pdf_url":"${PDF_URL.replaceAll('/', '\\/')}","png_url":"${PNG_URL}"}}}`;
const SECRETS = ['X-Amz-Credential', '5ec7e7', 'pa55w0rd', 't0k3n'];

describe('URL credentials in payloads and delivery bodies: raw for admins, redacted below', () => {
  let h: Harness;
  let deliveryId: string;
  let entryId: string;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 14, env: { ADMIN_TOKENS: `vera:viewer:${VIEWER},otto:operator:${OPERATOR}` } });
    [{ id: deliveryId }] = await h.database.query<Array<{ id: string }>>(
      `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, routed_at, project_id)
       VALUES ('events', 'drawing.created', $1, sha256($1), 'routed', now(), $2) RETURNING id::text AS id`,
      [Buffer.from(RAW), PROJECT_ID],
    );
    [{ id: entryId }] = await h.database.query<Array<{ id: string }>>(
      `INSERT INTO sync_log (kind, trigger, status, finished_at, project_id, inbox_id, payload, error)
       VALUES ('push_drawings', 'webhook', 'failed', now(), $1, $2, $3, $4) RETURNING id::text AS id`,
      [PROJECT_ID, deliveryId, JSON.stringify({ project_id: PROJECT_ID, pdf_url: PDF_URL, png_url: PNG_URL }), `download of ${PDF_URL} failed`],
    );
  });
  afterAll(() => h.close());

  const get = async (token: string, path: string): Promise<{ text: string; json: Json }> => {
    const res = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, json: JSON.parse(text) };
  };
  const paths = () => [`/api/deliveries/${deliveryId}`, `/api/projects/${PROJECT_ID}`, `/api/sync-logs/${entryId}`, `/api/sync-logs?project_id=${PROJECT_ID}`];

  it.each([
    ['a viewer', VIEWER],
    ['an operator', OPERATOR],
  ])('a %s sees no query string or userinfo of a URL, anywhere', async (_role, token) => {
    for (const path of paths()) {
      const { text } = await get(token, path);
      for (const secret of SECRETS) expect(`${path}: ${text}`).not.toContain(secret);
    }
    const delivery = (await get(token, `/api/deliveries/${deliveryId}`)).json;
    // The raw body is redacted as text: the long ids stay exactly as the service wrote them.
    expect(delivery.body).toBe(
      `{"event":"drawing.created","data":{"project_id":${PROJECT_ID}, "drawing":{"id":36029621652695017999,"pdf_url":"https:\\/\\/files.example.com\\/d\\/1.pdf?…","png_url":"https://…@cdn.example.com/d/1.png?…"}}}`,
    );
    expect(delivery.json.data.drawing).toEqual({
      id: '36029621652695017999',
      pdf_url: 'https://files.example.com/d/1.pdf?…',
      png_url: 'https://…@cdn.example.com/d/1.png?…',
    });
    expect(delivery.actions[0].payload).toEqual({
      project_id: PROJECT_ID,
      pdf_url: 'https://files.example.com/d/1.pdf?…',
      png_url: 'https://…@cdn.example.com/d/1.png?…',
    });
    const entry = (await get(token, `/api/sync-logs/${entryId}`)).json;
    expect(entry.error).toBe('download of https://files.example.com/d/1.pdf?… failed');
    expect((await get(token, `/api/projects/${PROJECT_ID}`)).json.actions[0].payload.pdf_url).toBe('https://files.example.com/d/1.pdf?…');
  });

  it('an admin sees the body byte for byte and payloads as stored', async () => {
    expect((await get(ADMIN_TOKEN, `/api/deliveries/${deliveryId}`)).json.body).toBe(RAW);
    expect((await get(ADMIN_TOKEN, `/api/sync-logs/${entryId}`)).json.payload.pdf_url).toBe(PDF_URL);
    expect((await get(ADMIN_TOKEN, `/api/projects/${PROJECT_ID}`)).json.actions[0].payload.png_url).toBe(PNG_URL);
  });

  it("shows viewers and operators a connection's base URL as its origin only; admins as set", async () => {
    const serviceOf = async (token: string) => (await get(token, '/api/connections')).json.items.find((c: Json) => c.name === 'service');
    const full = h.service.apiBaseUrl;
    expect(new URL(full).pathname).not.toBe('/');
    for (const token of [VIEWER, OPERATOR]) expect((await serviceOf(token)).settings.base_url).toBe(new URL(full).origin);
    expect((await serviceOf(ADMIN_TOKEN)).settings.base_url).toBe(full);
  });

  it('keeps the stored body byte-exact (replay reads it)', async () => {
    await get(VIEWER, `/api/deliveries/${deliveryId}`);
    const [row] = await h.database.query<Array<{ body: Buffer }>>(`SELECT body FROM webhook_inbox WHERE id = $1`, [deliveryId]);
    expect(row.body.toString('utf8')).toBe(RAW);
  });
});

describe('connection base URLs in what operators and viewers read: the origin only', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 14,
      // The service connected from the console, so that saving it writes an audit entry.
      env: { ADMIN_TOKENS: `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`, SERVICE_API_BASE_URL: '', SERVICE_API_TOKEN: '' },
    });
  });
  afterAll(() => h.close());

  const call = async (token: string, path: string, method = 'GET', body?: unknown): Promise<Json> => {
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status).toBe(200);
    return res.json();
  };

  it('names the service by its origin in the Test answer, the last check and the audit entry, never the path of its base URL', async () => {
    const full = h.service.apiBaseUrl;
    const { origin, pathname } = new URL(full);
    expect(pathname).toBe('/v1');
    await call(ADMIN_TOKEN, '/api/connections/service', 'PUT', { base_url: full, token: h.service.token });

    const tested = await call(OPERATOR, '/api/connections/service/test', 'POST');
    expect(tested).toMatchObject({ ok: true, detail: `the service at ${origin} accepted the token` });
    for (const token of [VIEWER, OPERATOR]) {
      const service = (await call(token, '/api/connections')).items.find((c: Json) => c.name === 'service');
      expect(service.detail).toBe(`the service at ${origin} accepted the token`);
      const audit = (await call(token, '/api/sync-logs?kind=admin_write')).items.map((e: Json) => e.detail as string);
      expect(audit).toEqual([`service connection set to ${origin} by admin`]);
      expect(JSON.stringify(audit)).not.toContain(full);
    }
    // A check recorded before they named origins only is shown so too; admins read it as recorded.
    await h.database.query(`UPDATE connection_check SET detail = $1 WHERE name = 'service'`, [`the service at ${full} accepted the token`]);
    for (const token of [VIEWER, OPERATOR]) {
      const service = (await call(token, '/api/connections')).items.find((c: Json) => c.name === 'service');
      expect(service.detail).toBe(`the service at ${origin} accepted the token`);
    }
    expect((await call(ADMIN_TOKEN, '/api/connections')).items.find((c: Json) => c.name === 'service').detail).toContain(full);
  });
});
