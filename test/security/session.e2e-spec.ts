import { createHmac, createHash } from 'node:crypto';
import { sessionMacKey, sessionSecretFrom } from '../../src/auth/session-secret.js';
import { ADMIN_TOKEN, startHarness, TEST_CONNECTIONS_KEY, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const ADMIN_TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`;

describe('console session: cookie, CSRF, /api/me, Bull Board', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 5, env: { ADMIN_TOKENS } });
  });
  afterAll(() => h.close());

  const login = (token: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.url}/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token }) });
  const cookieOf = (res: Response): string => /^crm_sync_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')![1];
  const withCookie = (value: string, path: string, init: RequestInit = {}) =>
    fetch(`${h.url}${path}`, { redirect: 'manual', ...init, headers: { ...(init.headers as Record<string, string>), cookie: `crm_sync_session=${value}` } });

  it('signs in: 204 and an HttpOnly, SameSite=Strict cookie for 12 hours; /api/me names the actor', async () => {
    const res = await login(OPERATOR);
    expect(res.status).toBe(204);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^crm_sync_session=otto\.0\.\d+\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    expect(setCookie).not.toContain(OPERATOR);
    const value = cookieOf(res);
    const expiry = Number(value.split('.')[2]);
    expect(Math.abs(expiry - (Date.now() / 1000 + 43200))).toBeLessThan(10);
    expect(await json(await withCookie(value, '/api/me'))).toEqual({ name: 'otto', role: 'operator' });
    expect((await withCookie(value, '/api/mappings')).status).toBe(200);
  });

  it('believes no X-Forwarded-Proto without TRUST_PROXY: a plain cookie (Secure from a named proxy: session-hardening.e2e-spec.ts)', async () => {
    const res = await login(ADMIN_TOKEN, { 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toMatch(/^crm_sync_session=/);
    expect(res.headers.get('set-cookie')).not.toContain('Secure');
  });

  it('401 for a wrong token; 400 for no token', async () => {
    const res = await login(`${OPERATOR}x`);
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await login(undefined)).status).toBe(400);
  });

  it('signs out: the cookie cleared', async () => {
    const res = await fetch(`${h.url}/admin/session`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toBe('crm_sync_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
  });

  it('refuses a tampered, expired or foreign cookie with 401', async () => {
    const value = cookieOf(await login(VIEWER));
    const [name, epoch, expiry, mac] = value.split('.');
    // What the daemon signs with: the server secret (here a sub-key of the test's CONNECTIONS_KEY) bound to the token's hash.
    const secret = sessionSecretFrom(null, { ok: true, key: Buffer.from(TEST_CONNECTIONS_KEY, 'hex'), origin: 'environment', path: null }).key;
    const forged = (payload: string, token: string) =>
      `${payload}.${createHmac('sha256', sessionMacKey(secret, createHash('sha256').update(token).digest()))
        .update(payload)
        .digest('base64url')}`;
    for (const bad of [
      `otto.${epoch}.${expiry}.${mac}`, // another name, the viewer's MAC
      `${name}.${epoch}.${Number(expiry) + 1000}.${mac}`, // a longer life
      `${name}.${epoch}.${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      forged(`${name}.${epoch}.${Math.floor(Date.now() / 1000) - 1}`, VIEWER), // well signed, but expired
      forged(`otto.${epoch}.${expiry}`, 'some-other-token-0123456'), // signed with a key that is not otto's token
      'garbage',
    ]) {
      const res = await withCookie(bad, '/api/me');
      expect(res.status).toBe(401);
    }
    // Correctly signed with the server secret and the viewer's token: accepted.
    expect((await withCookie(forged(`${name}.${epoch}.${expiry}`, VIEWER), '/api/me')).status).toBe(200);
  });

  it("a removed token's sessions stop working (another replica with other tokens)", async () => {
    const value = cookieOf(await login(VIEWER));
    const other = await startHarness({ redisDb: 5, env: { ADMIN_TOKENS: `otto:operator:${OPERATOR}` }, databaseUrl: h.databaseUrl });
    try {
      expect((await fetch(`${other.url}/api/me`, { headers: { cookie: `crm_sync_session=${value}` } })).status).toBe(401);
      const operator = cookieOf(await login(OPERATOR));
      expect(await json(await fetch(`${other.url}/api/me`, { headers: { cookie: `crm_sync_session=${operator}` } }))).toEqual({
        name: 'otto',
        role: 'operator',
      });
    } finally {
      await other.close();
    }
  });

  it('a write with the cookie needs the x-crm-sync-csrf header; a Bearer write does not', async () => {
    const value = cookieOf(await login(OPERATOR));
    const body = JSON.stringify({ crm: 'appointment', appointment_id: 'S-1', project_id: '4001' });
    const refused = await withCookie(value, '/api/mappings', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toContain('x-crm-sync-csrf');
    const accepted = await withCookie(value, '/api/mappings', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-crm-sync-csrf': '1' },
      body,
    });
    expect(accepted.status).toBe(201);
    const [write]: Json[] = await h.database.query(`SELECT actor FROM sync_log WHERE kind = 'admin_write' AND payload->>'mapping_id' = $1`, [
      (await json(accepted)).id,
    ]);
    expect(write.actor).toBe('otto');
    const bearer = await fetch(`${h.url}/api/mappings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ crm: 'appointment', appointment_id: 'S-2', project_id: '4002' }),
    });
    expect(bearer.status).toBe(201);
    // A viewer's cookie write is refused for its role first.
    const viewer = cookieOf(await login(VIEWER));
    const denied = await withCookie(viewer, '/api/mappings/associate', { method: 'POST', headers: { 'x-crm-sync-csrf': '1' } });
    expect(denied.status).toBe(403);
    expect((await json(denied)).required_role).toBe('operator');
  });

  it('Bull Board: 302 to /admin without a session, 200 with an admin session, 403 for a viewer', async () => {
    const none = await fetch(`${h.url}/admin/queues`, { redirect: 'manual' });
    expect(none.status).toBe(302);
    expect(none.headers.get('location')).toBe('/admin');
    const expired = await withCookie('vera.0.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/admin/queues');
    expect(expired.status).toBe(302);

    const admin = cookieOf(await login(ADMIN_TOKEN));
    const page = await withCookie(admin, '/admin/queues');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<base href="/admin/queues/"');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(static\/js\/main[^"]+)"/.exec(html)![1];
    expect((await withCookie(admin, `/admin/queues/${script}`)).status).toBe(200);
    const api = await withCookie(admin, '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10');
    expect(api.status).toBe(200);
    const names = (await json(api)).queues.map((q: Json) => q.name).sort();
    expect(names).toEqual(['appointment-crm-actions', 'maintenance', 'record-crm-actions', 'service-actions', 'webhooks']);
    expect((await fetch(`${h.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);

    const viewer = cookieOf(await login(VIEWER));
    const refused = await withCookie(viewer, '/admin/queues');
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ required_role: 'admin' });
    expect((await fetch(`${h.url}/admin/queues/api/queues`)).status).toBe(401);
  });

  it("Bull Board's writes with the cookie: the CSRF header or the browser's same-origin mark", async () => {
    const admin = cookieOf(await login(ADMIN_TOKEN));
    const pause = (headers: Record<string, string>) => withCookie(admin, '/admin/queues/api/queues/maintenance/pause', { method: 'PUT', headers });
    const resume = (headers: Record<string, string>) => withCookie(admin, '/admin/queues/api/queues/maintenance/resume', { method: 'PUT', headers });
    const refused = await pause({ 'sec-fetch-site': 'cross-site' });
    expect(refused.status).toBe(403);
    expect((await json(refused)).message).toContain('x-crm-sync-csrf');
    expect((await pause({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await resume({ 'x-crm-sync-csrf': '1' })).status).toBe(200);
    const writes: Json[] = await waitFor(async () => {
      const rows: Json[] = await h.database.query(`SELECT actor, detail FROM sync_log WHERE kind = 'admin_write' AND detail LIKE 'Bull Board:%' ORDER BY id`);
      return rows.length === 2 ? rows : null;
    });
    expect(writes).toEqual([
      { actor: 'admin', detail: 'Bull Board: PUT /api/queues/maintenance/pause by admin' },
      { actor: 'admin', detail: 'Bull Board: PUT /api/queues/maintenance/resume by admin' },
    ]);
  });

  it('the console page itself stays public and keeps its own CSP', async () => {
    const res = await fetch(`${h.url}/admin`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });
});
