import { createHash, createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorize } from '../../src/auth/admin-auth.guard.js';
import { AdminIdentityService } from '../../src/auth/session.service.js';
import { SessionController } from '../../src/auth/session.controller.js';
import { SignInThrottle } from '../../src/auth/sign-in-throttle.js';
import { SharedRedisService } from '../../src/queues/shared-redis.service.js';
import { sessionMacKey, sessionSecretFrom } from '../../src/auth/session-secret.js';
import { ADMIN_TOKEN, CapturingLogger, startHarness, TEST_CONNECTIONS_KEY, waitFor, type Harness } from '../support/harness.js';

// Redis db 5, shared with session.e2e-spec.ts (every index is taken); each harness keeps to its own queue prefix.
const REDIS_DB = 5;
const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const ADMIN_TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`;
const LIFETIME = 12 * 3600;
const TOKEN_LINE = /the daemon made this admin token: (\S+) —/;
/** A wait for two harnesses to start, not a promise about it. */
const HARNESS_START_MS = 120_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request from a given loopback address (127.0.0.0/8 is all this machine), so that one test can be several clients
 * without any proxy header.
 */
function send(base: string, path: string, init: { method?: string; from?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: init.method ?? 'GET', headers: init.headers, localAddress: init.from ?? '127.0.0.1' },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * Raw HTTP requests from one address, each on a connection of its own, written at the same moment once every
 * connection is open: guesses sent at once. Answers the statuses, sorted.
 */
async function allAtOnce(base: string, from: string, requests: string[]): Promise<number[]> {
  const { hostname, port } = new URL(base);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress: from }, () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<number>((resolve, reject) => {
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])));
        socket.on('error', reject);
      }),
  );
  sockets.forEach((socket, i) => socket.write(requests[i]));
  return (await Promise.all(answers)).sort();
}

const signIn = (base: string, token: string, from?: string, headers: Record<string, string> = {}): Promise<Answer> =>
  send(base, '/admin/session', { method: 'POST', from, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token }) });

const setCookieOf = (answer: Answer): string => {
  const value = answer.headers['set-cookie'];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};
const cookieValue = (answer: Answer): string => /^(?:__Host-)?crm_sync_session=([^;]*)/.exec(setCookieOf(answer))![1];
const me = (base: string, cookie: string): Promise<Answer> => send(base, '/api/me', { headers: { cookie } });

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const hmac = (key: Buffer, payload: string): string => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');
/** The key the daemon signs with in these tests: the server secret (a sub-key of CONNECTIONS_KEY) bound to the token's hash. */
const serverKeyOf = (token: string): Buffer =>
  sessionMacKey(sessionSecretFrom(null, { ok: true, key: Buffer.from(TEST_CONNECTIONS_KEY, 'hex'), origin: 'environment', path: null }).key, sha256(token));

describe('console sessions: a server secret, a bounded expiry, revocation; sign-in limits per address', () => {
  const logs = new CapturingLogger();
  let h: Harness;
  let replica: Harness;

  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, env: { ADMIN_TOKENS }, logger: logs });
    // A second replica: the same database and the same shared Redis keys. (Nest's logger is one per process: the last
    // app started sets it, so this one logs to the same lines.)
    replica = await startHarness({
      redisDb: REDIS_DB,
      env: { ADMIN_TOKENS, QUEUE_PREFIX: h.config.queuePrefix },
      databaseUrl: h.databaseUrl,
      logger: logs,
    });
    // Two apps started in one hook: on the loaded 2-core machine a start has taken over 30 s (as in alerts.e2e-spec).
  }, HARNESS_START_MS);
  afterAll(async () => {
    await replica?.close();
    await h?.close();
  });

  it('refuses a cookie signed with the stored token hash as its key, in the old format or the new, whatever its expiry', async () => {
    const far = Math.floor(Date.now() / 1000) + 10 * 365 * 86400;
    const soon = Math.floor(Date.now() / 1000) + 3600;
    const hash = sha256(OPERATOR); // what admin_credential (or a copy of it) holds
    for (const payload of [`otto.${far}`, `otto.${soon}`, `otto.0.${far}`, `otto.0.${soon}`]) {
      expect((await me(h.url, `crm_sync_session=${payload}.${hmac(hash, payload)}`)).status).toBe(401);
    }
    // The same payload signed with the server's key is accepted: the refusals above are about the key alone.
    expect((await me(h.url, `crm_sync_session=otto.0.${soon}.${hmac(serverKeyOf(OPERATOR), `otto.0.${soon}`)}`)).status).toBe(200);
  });

  it('refuses an expiry beyond the session lifetime, even correctly signed', async () => {
    const now = Math.floor(Date.now() / 1000);
    const key = serverKeyOf(OPERATOR);
    for (const expiry of [now + LIFETIME + 3600, now + 10 * 365 * 86400]) {
      expect((await me(h.url, `crm_sync_session=otto.0.${expiry}.${hmac(key, `otto.0.${expiry}`)}`)).status).toBe(401);
    }
    const within = now + LIFETIME - 60;
    expect((await me(h.url, `crm_sync_session=otto.0.${within}.${hmac(key, `otto.0.${within}`)}`)).status).toBe(200);
  });

  it('signing out revokes the session on every replica; signing in again works', async () => {
    const value = cookieValue(await signIn(h.url, VIEWER));
    const cookie = `crm_sync_session=${value}`;
    expect((await me(h.url, cookie)).status).toBe(200);
    expect((await me(replica.url, cookie)).status).toBe(200);

    const out = await send(h.url, '/admin/session', { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(204);
    expect(setCookieOf(out)).toBe('crm_sync_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    expect((await me(h.url, cookie)).status).toBe(401);
    expect((await me(replica.url, cookie)).status).toBe(401);

    const again = cookieValue(await signIn(replica.url, VIEWER));
    expect(again).not.toBe(value);
    expect(JSON.parse((await me(h.url, `crm_sync_session=${again}`)).body)).toEqual({ name: 'vera', role: 'viewer' });
  });

  it('after 10 failed sign-ins an address gets 429 with Retry-After, even with a right token; another address does not', async () => {
    const attacker = '127.0.0.2';
    for (let i = 0; i < 10; i++) expect((await signIn(h.url, `wrong-token-${i}-0123456789`, attacker)).status).toBe(401);
    const blocked = await signIn(h.url, `wrong-token-x-0123456789`, attacker);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await signIn(h.url, OPERATOR, attacker)).status).toBe(429);
    expect(setCookieOf(await signIn(h.url, OPERATOR, attacker))).toBe('');
    expect((await send(h.url, '/api/me', { from: attacker, headers: { authorization: `Bearer ${OPERATOR}` } })).status).toBe(429);
    // Counted in Redis: the other replica refuses that address too.
    expect((await signIn(replica.url, OPERATOR, attacker)).status).toBe(429);

    const other = '127.0.0.3';
    expect((await signIn(h.url, 'wrong-token-y-0123456789', other)).status).toBe(401);
    expect((await signIn(h.url, OPERATOR, other)).status).toBe(204);
  });

  it('counts Bearer failures the same way', async () => {
    const from = '127.0.0.4';
    const wrong = { authorization: 'Bearer not-a-token-at-all-000' };
    for (let i = 0; i < 10; i++) expect((await send(h.url, '/api/mappings', { from, headers: wrong })).status).toBe(401);
    const blocked = await send(h.url, '/api/mappings', { from, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(blocked.body)).toMatchObject({ statusCode: 429 });
    expect((await send(h.url, '/admin/queues/api/queues', { from, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(429);
    expect((await send(h.url, '/api/mappings', { from: '127.0.0.5', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });

  it('checks no more than 10 guesses sent at once, sign-ins and Bearer tokens alike: the rest get 429', async () => {
    // In the process, all at once: each guess's check starts before any answer of Redis is back.
    const identity = h.app.get(AdminIdentityService);
    const throttle = h.app.get(SignInThrottle);
    const sessions = h.app.get(SessionController);
    const limited = [...Array<number>(10).fill(401), ...Array<number>(20).fill(429)];
    const bearer = (i: number) =>
      ({ ip: '127.0.0.10', method: 'GET', headers: { authorization: `Bearer guess-${i}-0123456789` } }) as unknown as FastifyRequest;
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => authorize(identity, throttle, bearer(i), 'viewer')));
    expect(decisions.map((d) => (d.ok ? 200 : d.status)).sort()).toEqual(limited);
    // The refused ones gave their slots back: the count is the 10 failures.
    const redis = h.app.get(SharedRedisService);
    expect(await redis.client.get(redis.key('sign-in-failures', '127.0.0.10'))).toBe('10');
    const reply = { header: () => reply } as unknown as FastifyReply;
    const signIns = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        sessions.login({ token: `guess-${i}-0123456789` }, { ip: '127.0.0.11', headers: {} } as FastifyRequest, reply).then(
          () => 204,
          (err: HttpException) => err.getStatus(),
        ),
      ),
    );
    expect(signIns.sort()).toEqual(limited);
  });

  it('answers guesses sent at once on connections of their own with at most 10 checked', async () => {
    const signIns = Array.from({ length: 30 }, (_, i) => {
      const body = JSON.stringify({ token: `wrong-token-${i}-0123456789` });
      return `POST /admin/session HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
    });
    expect(await allAtOnce(h.url, '127.0.0.13', signIns)).toEqual([...Array<number>(10).fill(401), ...Array<number>(20).fill(429)]);
  });

  it('a right token gives its slot back: it does not bring an address nearer the limit', async () => {
    const from = '127.0.0.12';
    for (let i = 0; i < 9; i++) expect((await signIn(h.url, `wrong-token-${i}-0123456789`, from)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await send(h.url, '/api/me', { from, headers: { authorization: `Bearer ${VIEWER}` } })).status).toBe(200);
    expect((await signIn(h.url, OPERATOR, from)).status).toBe(204);
    expect((await signIn(h.url, 'wrong-token-9-0123456789', from)).status).toBe(401);
    expect((await signIn(h.url, OPERATOR, from)).status).toBe(429);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a client cannot pick a fresh address for each try', async () => {
    const from = '127.0.0.6';
    for (let i = 0; i < 10; i++) {
      expect((await signIn(h.url, `wrong-token-${i}-0123456789`, from, { 'x-forwarded-for': `198.51.100.${i + 1}` })).status).toBe(401);
    }
    expect((await signIn(h.url, 'wrong-token-z-0123456789', from, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });

  it('warns in the log that X-Forwarded-For arrived without TRUST_PROXY, once however many come', async () => {
    const warning = 'carries X-Forwarded-For but TRUST_PROXY is unset';
    for (let i = 0; i < 3; i++) expect((await signIn(h.url, VIEWER, '127.0.0.9', { 'x-forwarded-for': `198.51.100.${200 + i}` })).status).toBe(204);
    const line = await waitFor(() => logs.lines.find((l) => l.includes(warning)), 10_000, 'the warning');
    expect(line).toContain('set TRUST_PROXY');
    // Once per ten minutes: the three requests above (and the tests before) gave one line.
    expect(logs.lines.filter((l) => l.includes(warning))).toHaveLength(1);
  });

  it('logs a failed sign-in with the address and without the token', async () => {
    const secret = 'a-guessed-token-that-must-not-be-logged-4711';
    expect((await signIn(h.url, secret, '127.0.0.7')).status).toBe(401);
    const line = await waitFor(() => logs.lines.find((l) => l.includes('127.0.0.7')));
    expect(line).toContain('sign-in');
    expect(logs.lines.join('\n')).not.toContain(secret);
    expect(logs.lines.join('\n')).not.toContain('not-a-token-at-all-000');
  });
});

describe('behind a proxy named in TRUST_PROXY', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, env: { ADMIN_TOKENS, TRUST_PROXY: '127.0.0.1, ::1' } });
  });
  afterAll(() => h?.close());

  it('limits per forwarded client address, and marks the cookie Secure when the proxy says https', async () => {
    const client = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 10; i++) expect((await signIn(h.url, `wrong-token-${i}-0123456789`, '127.0.0.1', client)).status).toBe(401);
    expect((await signIn(h.url, OPERATOR, '127.0.0.1', client)).status).toBe(429);
    // Another client behind the same proxy is not held back.
    const secure = await signIn(h.url, OPERATOR, '127.0.0.1', { 'x-forwarded-for': '203.0.113.8', 'x-forwarded-proto': 'https' });
    expect(secure.status).toBe(204);
    expect(setCookieOf(secure)).toMatch(/^__Host-crm_sync_session=otto\.0\.\d+\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/);
  });

  it('counts an IPv6 client by its /64: another address of that /64 is held back, the next /64 is not', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await signIn(h.url, `wrong-token-${i}-0123456789`, '127.0.0.1', { 'x-forwarded-for': `2001:db8:5:6::${i + 1}` })).status).toBe(401);
    }
    expect((await signIn(h.url, OPERATOR, '127.0.0.1', { 'x-forwarded-for': '2001:db8:5:6:ffff:ffff:ffff:fffe' })).status).toBe(429);
    expect((await signIn(h.url, OPERATOR, '127.0.0.1', { 'x-forwarded-for': '2001:db8:5:7::1' })).status).toBe(204);
  });

  it('believes no X-Forwarded-For from a peer it was not told about', async () => {
    const from = '127.0.0.8';
    for (let i = 0; i < 10; i++) {
      expect((await signIn(h.url, `wrong-token-${i}-0123456789`, from, { 'x-forwarded-for': `198.51.100.${i + 1}` })).status).toBe(401);
    }
    expect((await signIn(h.url, OPERATOR, from, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });
});

describe('with an https PUBLIC_URL and the admin token made on the first start', () => {
  const logs = new CapturingLogger();
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, env: { ADMIN_TOKEN: '', PUBLIC_URL: 'https://sync.example.com' }, logger: logs });
    token = TOKEN_LINE.exec(await waitFor(() => logs.lines.find((l) => TOKEN_LINE.test(l)), 20_000, 'the printed admin token'))![1];
  });
  afterAll(() => h?.close());

  it('names the cookie __Host-crm_sync_session, Secure, Path=/, no Domain, even over plain http', async () => {
    const res = await signIn(h.url, token);
    expect(res.status).toBe(204);
    expect(setCookieOf(res)).toMatch(/^__Host-crm_sync_session=admin\.0\.\d+\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/);
    const value = cookieValue(res);
    expect(JSON.parse((await me(h.url, `__Host-crm_sync_session=${value}`)).body)).toEqual({ name: 'admin', role: 'admin' });
    // The plain name is not read where cookies are __Host-: no other host of the site can plant one.
    expect((await me(h.url, `crm_sync_session=${value}`)).status).toBe(401);
    const out = await send(h.url, '/admin/session', { method: 'DELETE', headers: { cookie: `__Host-crm_sync_session=${value}` } });
    expect(setCookieOf(out)).toBe('__Host-crm_sync_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure');
    expect((await me(h.url, `__Host-crm_sync_session=${value}`)).status).toBe(401);
  });

  it('refuses a session minted from the stored hash in admin_credential', async () => {
    const [row] = await h.database.query<Array<{ token_hash: string }>>(`SELECT token_hash FROM admin_credential WHERE name = 'admin'`);
    expect(row.token_hash).toBe(sha256(token).toString('hex'));
    const key = Buffer.from(row.token_hash, 'hex');
    const expiry = Math.floor(Date.now() / 1000) + 3600;
    for (const payload of [`admin.${expiry}`, `admin.0.${expiry}`, `admin.1.${expiry}`]) {
      for (const name of ['crm_sync_session', '__Host-crm_sync_session']) {
        expect((await me(h.url, `${name}=${payload}.${hmac(key, payload)}`)).status).toBe(401);
      }
    }
  });
});
