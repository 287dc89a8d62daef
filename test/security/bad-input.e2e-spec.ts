import fc from 'fast-check';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;

// Redis db 15 is shared with another file; every harness keeps to its own queue prefix.
const REDIS_DB = 15;
const OPERATOR = 'operator-token-bad-input-0123';
/** Each property stops after this long, whatever numRuns says, so that the file fits the e2e lane's 30 s. */
const PROPERTY_MS = 6_000;
/** What a malformed, oversized or hostile request must leave as it was. */
const STORED = ['sync_log', 'mapping', 'webhook_inbox', 'connection', 'mapping_suggestion', 'project', 'oauth_state'];
const NOTIFY_PATH = '/webhooks/record-crm/notifications';

/** Text built to hurt: control and bidi characters, quotes, SQL and SOQL/COQL syntax, path tricks, huge numbers. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e\u200b',
    "' OR 1=1 --",
    '"); DROP TABLE mapping; --',
    "Name = 'x' OR Id != null",
    '(Full_Name:equals:a)or(Email:starts_with:*)',
    '..',
    '../..',
    '%2e%2e',
    '%00',
    '%',
    '__proto__',
    'constructor',
    '1e100000000',
    '9'.repeat(400),
    '<script>alert(1)</script>',
    '*',
    '\\',
    '\uffff\ud800',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 101, maxLength: 2_000 }),
);
const queryOf = (keys: string[]) =>
  fc.oneof(
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 6 })), hostileText), { maxLength: 4 })
      .map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom(...keys.flatMap((k) => [`${k}[]=a`, `${k}=a&${k}=b`, `${k}[x]=1`, `${k}`, `${k}=%zz`])),
  );

describe('bad input on the new routes: notifications, metadata, schema, funnel, search', () => {
  let h: Harness;
  let channel: { channelId: string; token: string };

  beforeAll(async () => {
    h = await startHarness({
      redisDb: REDIS_DB,
      appointmentCrm: true,
      recordCrm: true,
      env: {
        ADMIN_TOKENS: `otto:operator:${OPERATOR}`,
        SEARCH_MAX_PER_USER: '100000',
        AUTOMATION_POLL_SECONDS: '3600',
        AUTOMATION_NOTIFIED_POLL_SECONDS: '3600',
        ZOHO_NOTIFICATION_CHECK_SECONDS: '3600',
      },
      tune: (config) => (config.signIn.maxFailures = 1_000_000),
    });
    // Zoho must reach the daemon: its own address stands for PUBLIC_URL. A live channel, so a notification may pass.
    h.config.publicUrl = h.url;
    const settings = await h.admin('/api/automations/record-crm', {
      method: 'PUT',
      json: { create_projects: true, module: 'Deals', field: 'Stage', values: ['Closed Won'], owner: 'owner@example.com' },
    });
    expect(settings.status).toBe(200);
    const live = await waitFor(() => h.zoho!.notifications.live[0], 10_000, 'the notification channel');
    channel = { channelId: String(live.channelId), token: live.token! };
  });
  afterAll(() => h.close());

  const digest = async (): Promise<Record<string, string>> => {
    const sums = STORED.map((table) => `(SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${table} t) AS ${table}`);
    const [row] = await h.database.query<Array<Record<string, string>>>(`SELECT ${sums.join(', ')}`);
    return row;
  };
  const get = async (path: string, token: string): Promise<{ status: number; body: string }> => {
    const res = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.text() };
  };
  /** A 4xx answers with a JSON body naming what is wrong (a 431 or 414 of the HTTP server may have none). */
  const clear = (answer: { status: number; body: string }): boolean => {
    if (answer.status === 431 || answer.status === 414) return true;
    try {
      const body = JSON.parse(answer.body) as Json;
      return typeof (body.message ?? body.error) === 'string' || Array.isArray(body.message) || Array.isArray(body.errors);
    } catch {
      return false;
    }
  };

  it('answers malformed, oversized and hostile queries of the searches, the funnel, the metadata and the schema with a clear 4xx or a plain answer, storing nothing', async () => {
    const before = await digest();
    const routes = [
      { path: '/api/search/projects', keys: ['q'], token: OPERATOR },
      { path: '/api/search/crm-records', keys: ['q', 'crm', 'module'], token: OPERATOR },
      { path: '/api/funnel', keys: ['window', 'crm'], token: ADMIN_TOKEN },
      { path: '/api/crm-metadata/record-crm/fields', keys: ['module'], token: ADMIN_TOKEN },
      { path: '/api/crm-metadata/record-crm/modules', keys: ['module'], token: ADMIN_TOKEN },
      { path: '/api/crm-metadata/record-crm/pipelines', keys: ['module'], token: ADMIN_TOKEN },
      { path: '/api/crm-metadata/appointment-crm/statuses', keys: ['crm'], token: ADMIN_TOKEN },
      { path: '/api/connections/appointment-crm/schema', keys: ['refresh', 'names'], token: ADMIN_TOKEN },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: routes.length - 1 }).chain((i) => fc.tuple(fc.constant(routes[i]), queryOf(routes[i].keys))),
        async ([route, query]) => {
          const answer = await get(`${route.path}?${query}`, route.token);
          const fine = answer.status < 300 || (answer.status >= 400 && answer.status < 500 && clear(answer));
          expect({ path: route.path, query, status: answer.status, fine }).toEqual({ path: route.path, query, status: answer.status, fine: true });
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: PROPERTY_MS, markInterruptAsFailure: false },
    );
    // The known-bad ones, each a 400 naming the parameter.
    for (const [path, token, names] of [
      ['/api/search/projects', OPERATOR, 'q'],
      [`/api/search/projects?q=${'a'.repeat(201)}`, OPERATOR, 'q must be at most 200 characters'],
      ['/api/search/crm-records?crm=record&module=Accounts&q=ana', OPERATOR, 'module must be one of'],
      ['/api/search/crm-records?crm=%00&q=ana', OPERATOR, 'crm must be appointment or record'],
      ['/api/funnel?window=1e100000000', ADMIN_TOKEN, 'window must be 24h, 7d or 30d'],
      ['/api/funnel?crm=..', ADMIN_TOKEN, 'crm must be appointment or record'],
      ['/api/crm-metadata/record-crm/fields?module=__proto__', ADMIN_TOKEN, 'module must be one of'],
    ] as const) {
      const answer = await get(path, token);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(answer.body).toContain(names);
    }
    // A query past what the HTTP server reads at all.
    expect((await get(`/api/search/projects?q=${'x'.repeat(64 * 1024)}`, OPERATOR)).status).toBe(431);
    expect(await digest()).toEqual(before);
    // Nothing lost: a plain search and the funnel still answer.
    expect((await get('/api/funnel?window=24h', ADMIN_TOKEN)).status).toBe(200);
    expect((await get('/api/search/crm-records?crm=record&module=Deals&q=Roof', OPERATOR)).status).toBe(200);
  }, 30_000);

  it('answers malformed, oversized and hostile notifications with a 4xx (a right token at most ignored), storing nothing; a real one still lands', async () => {
    const before = await digest();
    const post = async (body: string | Buffer, contentType = 'application/json') => {
      const res = await fetch(`${h.url}${NOTIFY_PATH}`, { method: 'POST', headers: { 'content-type': contentType }, body });
      return { status: res.status, body: await res.text() };
    };
    const hostileJson = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            channel_id: fc.oneof(fc.constant(channel.channelId), hostileText, fc.constant(Number(channel.channelId)), fc.constant(1e308), fc.constant(null)),
            token: fc.oneof(hostileText, fc.constant(`${channel.token}x`), fc.constant(channel.token.slice(1))),
            module: fc.oneof(fc.constant('Deals'), hostileText),
            operation: hostileText,
            ids: fc.oneof(fc.array(hostileText, { maxLength: 5 }), fc.constant(Array.from({ length: 5_000 }, (_, i) => `${i}`)), hostileText),
          },
          { requiredKeys: ['token'] },
        )
        .map((v) => JSON.stringify(v)),
      fc.constantFrom('{', '[]', 'null', '"x"', '{"a":'.repeat(500), '\u0000', '{"channel_id":1e100000000}', '{"__proto__":{"polluted":true},"token":"x"}'),
    );
    await fc.assert(
      fc.asyncProperty(
        hostileJson,
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'garbage/;;'),
        async (body, type) => {
          const answer = await post(body, type);
          const refused = answer.status >= 400 && answer.status < 500 && clear(answer);
          expect({ body: body.slice(0, 200), status: answer.status, refused }).toEqual({ body: body.slice(0, 200), status: answer.status, refused: true });
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: PROPERTY_MS, markInterruptAsFailure: false },
    );
    // Over the webhooks' 1 MiB, with the right token: refused before it is read.
    const oversized = JSON.stringify({ channel_id: channel.channelId, token: channel.token, module: 'Deals', ids: ['1'], pad: 'x'.repeat(1024 * 1024) });
    expect((await post(oversized)).status).toBe(413);
    // The right token with hostile ids and modules: taken at most as "ignored", nothing read for them.
    const ignored = await post(JSON.stringify({ channel_id: channel.channelId, token: channel.token, module: '__proto__', ids: ['..', '1e9', "'"] }));
    expect(ignored.status).toBe(200);
    expect(JSON.parse(ignored.body)).toEqual({ status: 'ignored' });
    expect(await digest()).toEqual(before);

    // Nothing lost: a Deal moved to a qualifying stage still arrives by its notification and is mapped.
    const deal = h.zoho!.addRecord('Deals', undefined, { Deal_Name: 'After the fuzz', Stage: 'Qualification' });
    h.zoho!.modifyRecord('Deals', deal, { Stage: 'Closed Won' });
    const mapping = await waitFor(
      async () => ((await (await h.admin('/api/mappings?crm=record')).json()) as { items: Json[] }).items.find((m) => m.record_crm_record_id === deal),
      10_000,
      'the mapping of the notified Deal',
    );
    expect(mapping).toMatchObject({ record_crm_module: 'Deals', source: 'automation' });
  }, 30_000);
});
