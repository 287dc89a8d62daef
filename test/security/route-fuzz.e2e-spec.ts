import fc from 'fast-check';
import { createHash, createHmac } from 'node:crypto';
import { sessionMacKey, sessionSecretFrom } from '../../src/auth/session-secret.js';
import { CSRF_HEADER, SESSION_CLOCK_SKEW_SECONDS, SESSION_SECONDS } from '../../src/auth/session.service.js';
import {
  ADMIN_TOKEN,
  APPOINTMENT_PROMPT_SECRET,
  EVENTS_SECRET,
  RECORD_PROMPT_SECRET,
  startHarness,
  TEST_CONNECTIONS_KEY,
  type Harness,
} from '../support/harness.js';

// Redis db 15 is shared with another file; every harness keeps to its own queue prefix.
const REDIS_DB = 15;
const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const SECOND_ADMIN = 'second-admin-token-0123456789';
const ADMIN_TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR},ada:admin:${SECOND_ADMIN}`;
const TOKENS: Record<string, string> = { vera: VIEWER, otto: OPERATOR, ada: SECOND_ADMIN, admin: ADMIN_TOKEN };
/** What a request made without the right role must leave as it was. */
const GUARDED_TABLES = ['sync_log', 'mapping', 'connection', 'webhook_inbox', 'admin_session_epoch', 'admin_credential', 'oauth_state'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const WEBHOOK_SECRETS: Record<string, string> = {
  '/webhooks/events': EVENTS_SECRET,
  '/webhooks/appointment-crm/export-prompt': APPOINTMENT_PROMPT_SECRET,
  '/webhooks/record-crm/export-prompt': RECORD_PROMPT_SECRET,
};
/** Each property stops after this long, whatever numRuns says, so that the file fits the e2e lane's 30 s. */
const PROPERTY_MS = 8_000;

interface Route {
  method: string;
  path: string;
}

/**
 * The routes of the running app, read from Fastify's route table (`printRoutes`), so a route added later is fuzzed
 * without touching this file. Each line is `<tree> <segment> (<METHODS>)`, a child's segment continuing its parent's.
 */
function routesOf(table: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of table.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    stack.length = depth;
    stack.push(match[2]);
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push({ method, path: stack.join('') });
  }
  return routes;
}

/** Admin and webhook routes; the console's static files are skipped (they only serve bytes). */
const fuzzed = (route: Route): boolean => /^\/(api|admin|webhooks)(\/|$)/.test(route.path) && !/\.(js|css|html|json)$/.test(route.path);

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const connectionsKey = { ok: true as const, key: Buffer.from(TEST_CONNECTIONS_KEY, 'hex'), origin: 'environment' as const, path: null };
/** A session cookie value with a right MAC (the harness derives its session secret from the connections key). */
const signedSession = (name: string, epoch: number, expiry: number): string => {
  const payload = `${name}.${epoch}.${expiry}`;
  const key = sessionMacKey(sessionSecretFrom(null, connectionsKey).key, sha256(TOKENS[name]));
  return `${payload}.${createHmac('sha256', key).update(payload, 'utf8').digest('base64url')}`;
};
const nowSeconds = () => Math.floor(Date.now() / 1000);

const segmentValue = fc.oneof(
  fc.constantFrom('1', '0', '-1', '36029621652695017123', '9'.repeat(80), 'abc', '1.5', '1e3', ' 1', 'service', 'webhooks', 'record-crm'),
  fc.constantFrom('appointment-crm', 'x', '%00', '%2e%2e', '%ff', '..', 'a'.repeat(300), 'relay', 'failed', 'completed'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const queryKey = fc.oneof(
  fc.constantFrom('limit', 'cursor', 'status', 'kind', 'project_id', 'crm', 'since', 'window', 'dry_run', 'endpoint', 'event', 'state', 'code', 'scope'),
  fc.string({ maxLength: 8 }),
);
const queryValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '500', '1e309', 'NaN', 'true', '[]', '{}', 'failed', 'duplicate', '24h', 'appointment', 'full', '9'.repeat(70)),
  fc.constantFrom('2026-13-45T99:00:00Z', '36029621652695017123', 'events', '%', 'a,b'),
  fc.string({ maxLength: 30 }),
);
const query = fc.oneof(
  fc.constant(''),
  fc.array(fc.tuple(queryKey, queryValue), { maxLength: 5 }).map((pairs) => `?${new URLSearchParams(pairs).toString()}`),
  fc.constantFrom('?%zz', '?limit=1&limit=2', '?state=a&state=b&code=c', '?&&=&', '?project_id[]=1', '?__proto__=1'),
);
const fieldName = fc.constantFrom(
  'crm',
  'appointment_id',
  'project_id',
  'record_crm_module',
  'record_crm_record_id',
  'token',
  'base_url',
  'api_key',
  'events',
  'accounts_url',
  'client_id',
  'client_secret',
  'scope',
  'event',
  'data',
  'url',
  '__proto__',
  'constructor',
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 2 })).map((value) => JSON.stringify(value)),
  fc.constantFrom('{', '[', 'null', '""', '{"project_id":36029621652695017123123}', 'crm,project_id\nappointment,1\n', '\u0000\uffff', '{"a":'.repeat(200)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
);
// Mostly JSON, so that requests get past body parsing to validation and the handlers.
const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-16',
      'text/csv',
      'text/plain',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'application/xml',
      'garbage/;;',
    ),
    weight: 3,
  },
);

/** Credentials that must not let anything change: none, wrong, forged, or a viewer's. */
const unprivileged = fc.oneof(
  fc.constant<Record<string, string>>({}),
  fc.constantFrom<Record<string, string>>(
    { authorization: 'Bearer not-a-token-0123456789' },
    { authorization: `Bearer ${ADMIN_TOKEN}x` },
    { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    { authorization: `bearer` },
    { authorization: `Bearer ${VIEWER}` },
  ),
  // A forged MAC, for any name and a plausible expiry.
  fc
    .tuple(
      fc.constantFrom('ada', 'admin', 'otto', 'vera', 'nobody'),
      fc.integer({ min: 1, max: SESSION_SECONDS }),
      fc.base64String({ minLength: 1, maxLength: 44 }),
    )
    .map(([name, ahead, mac]) => ({ cookie: `crm_sync_session=${name}.0.${nowSeconds() + ahead}.${mac.replace(/[+/=]/g, '_')}` })),
  // A right MAC on an expiry beyond the lifetime (or in the past, or in a later epoch): refused all the same.
  fc
    .tuple(
      fc.constantFrom('ada', 'admin', 'otto'),
      fc.oneof(fc.integer({ min: SESSION_SECONDS + SESSION_CLOCK_SKEW_SECONDS + 5, max: 20 * 365 * 86_400 }), fc.integer({ min: -86_400, max: -1 })),
      fc.constantFrom(0, 0, 7),
    )
    .map(([name, ahead, epoch]) => ({ cookie: `crm_sync_session=${signedSession(name, epoch, nowSeconds() + ahead)}` })),
  fc.string({ maxLength: 60 }).map((junk) => ({ cookie: `crm_sync_session=${encodeURIComponent(junk)}; __Host-crm_sync_session=${encodeURIComponent(junk)}` })),
);
/** Credentials that may change things: an operator's or an admin's token, or an admin's valid session. */
const privileged = fc.oneof(
  fc.constantFrom<Record<string, string>>(
    { authorization: `Bearer ${OPERATOR}` },
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { authorization: `Bearer ${SECOND_ADMIN}` },
  ),
  fc.constant(0).map(() => ({ cookie: `crm_sync_session=${signedSession('ada', 0, nowSeconds() + 3_600)}` })),
);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Carries a valid signature of a webhook's secret: the one kind of unauthenticated request that may store. */
  signed: boolean;
}

const request = (routes: Route[], credentials: fc.Arbitrary<Record<string, string>>, signed: boolean): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.option(fc.constantFrom(...METHODS), { freq: 4 }),
      segments: fc.array(segmentValue, { minLength: 4, maxLength: 4 }),
      query,
      body,
      contentType,
      credentials,
      csrf: fc.boolean(),
      signature: fc.option(fc.constantFrom('t=1,v=00', 'v=', '', 't=9999999999,v=' + 'a'.repeat(64), 'garbage,,=,'), { nil: undefined }),
      sign: fc.boolean(),
    })
    .map((r) => {
      let n = 0;
      const path = r.route.path.replace(/:[A-Za-z_]+|\*/g, () => r.segments[n++ % r.segments.length]);
      const method = r.otherMethod ?? r.route.method;
      const headers: Record<string, string> = { ...r.credentials };
      if (r.contentType) headers['content-type'] = r.contentType;
      if (r.csrf) headers[CSRF_HEADER] = '1';
      const sendsBody = method !== 'GET' && method !== 'HEAD' && r.body !== undefined;
      const raw = sendsBody ? r.body : undefined;
      const secret = WEBHOOK_SECRETS[path];
      const signs = signed && r.sign && secret !== undefined && raw !== undefined;
      if (signs) {
        const t = nowSeconds();
        headers['service-signature'] = `t=${t},v=${createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex')}`;
      } else if (r.signature !== undefined) headers['service-signature'] = r.signature;
      return { method, path: `${path}${r.query}`, headers, body: raw, signed: signs };
    });

describe('every admin and webhook route, fuzzed', () => {
  let h: Harness;
  let routes: Route[];

  beforeAll(async () => {
    // Many wrong tokens from one address: the sign-in limit would answer 429 to everything after the tenth.
    h = await startHarness({ redisDb: REDIS_DB, env: { ADMIN_TOKENS }, tune: (config) => (config.signIn.maxFailures = 1_000_000) });
    routes = routesOf(h.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false })).filter(fuzzed);
  });
  afterAll(() => h.close());

  const send = async (r: FuzzRequest): Promise<number> => {
    const res = await fetch(`${h.url}${r.path}`, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual' });
    await res.arrayBuffer();
    return res.status;
  };
  const digest = async (): Promise<Record<string, string>> => {
    const sums = GUARDED_TABLES.map(
      (table) => `(SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${table} t) AS ${table}`,
    );
    const [row] = await h.database.query<Array<Record<string, string>>>(`SELECT ${sums.join(', ')}`);
    return row;
  };
  const inboxCount = async (): Promise<number> => Number((await h.database.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM webhook_inbox`))[0].n);

  it('discovers the admin routes, the console session, the OAuth callback, Bull Board and the webhooks', () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const expected of [
      'GET /api/sync-logs/:id',
      'POST /api/mappings/import',
      'DELETE /api/connections/:name',
      'POST /admin/session',
      'GET /admin/connections/record-crm/callback',
      'PUT /admin/queues/api/queues/:queueName/obliterate',
      'POST /webhooks/events',
      'POST /webhooks/record-crm/export-prompt',
    ])
      expect(paths).toContain(expected);
  });

  it('answers requests without the right role below 500, and changes nothing for them', async () => {
    const before = await digest();
    await fc.assert(
      fc.asyncProperty(request(routes, unprivileged, false), async (r) => {
        const status = await send(r);
        expect({ request: r, status: status < 500 ? 'below 500' : status }).toEqual({ request: r, status: 'below 500' });
        expect(await digest()).toEqual(before);
      }),
      { numRuns: 400, interruptAfterTimeLimit: PROPERTY_MS, markInterruptAsFailure: false },
    );
  }, 30_000);

  it('answers operators, admins and signed deliveries below 500, storing at most one delivery per signed request', async () => {
    const inboxBefore = await inboxCount();
    let signed = 0;
    await fc.assert(
      fc.asyncProperty(request(routes, privileged, true), async (r) => {
        const status = await send(r);
        if (r.signed) signed++;
        expect({ request: r, status: status < 500 ? 'below 500' : status }).toEqual({ request: r, status: 'below 500' });
      }),
      { numRuns: 300, interruptAfterTimeLimit: PROPERTY_MS, markInterruptAsFailure: false },
    );
    expect((await inboxCount()) - inboxBefore).toBeLessThanOrEqual(signed);
  }, 30_000);

  it('refuses a CSV body on a route that does not stream it with 415 (it once aborted the process), and signs a CSV-typed delivery over its bytes', async () => {
    const signIn = await fetch(`${h.url}/admin/session`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'token\nx\n' });
    expect(signIn.status).toBe(415);
    const toAnotherRoute = await fetch(`${h.url}/api/mappings`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: 'crm\n',
    });
    expect(toAnotherRoute.status).toBe(415);
    expect((await fetch(`${h.url}/health`)).status).toBe(200);

    const delivery = JSON.stringify({ event: 'project.updated', data: { id: '36029621652695301', name: 'P', tags: [] } });
    const t = nowSeconds();
    const signature = `t=${t},v=${createHmac('sha256', EVENTS_SECRET).update(`${t}.${delivery}`).digest('hex')}`;
    const res = await fetch(`${h.url}/webhooks/events`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'service-signature': signature },
      body: delivery,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'accepted' });
  });
});
