import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ZOHO_SCOPE_ENDPOINTS } from '../../src/record-crm/zoho/zoho-scopes.js';
import { ZohoRevenueClient } from '../../src/record-crm/zoho/zoho-revenue.client.js';
import { ZOHO_ROUTE_RULES, type RouteRule } from '../../sim/zoho/route-rules.js';
import { failureOf, ZohoClients } from '../support/zoho-clients.js';

type Json = Record<string, any>;
const ZOHO_SOURCES = join(import.meta.dirname, '../../src/record-crm/zoho');

/** Every call label the Zoho client names: the scope table's and each `'<METHOD> /…'` written in the client's files. */
async function clientCalls(): Promise<string[]> {
  const labels = new Set<string>(Object.values(ZOHO_SCOPE_ENDPOINTS).flat());
  for (const file of await readdir(ZOHO_SOURCES)) {
    if (!file.endsWith('.ts') || file.endsWith('.spec.ts')) continue;
    const text = await readFile(join(ZOHO_SOURCES, file), 'utf8');
    for (const match of text.matchAll(/'((?:GET|POST|PUT|PATCH|DELETE) \/[^'\s]*)'/g)) labels.add(match[1]);
  }
  // The accounts server's OAuth calls are no route of the CRM API (accounts.ts answers them).
  return [...labels].filter((label) => !label.includes('/oauth/')).sort();
}

const uncovered = (calls: string[], rules: readonly RouteRule[]) => calls.filter((call) => !rules.some((rule) => rule.calls.includes(call)));

/**
 * sim/zoho's route table (route-rules.ts): one row per route the client calls, each with its crm-oas source; the
 * simulator answers a request that breaks a row with the row's error, and one no row describes with 404.
 */
describe('the Zoho simulator route table', () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;
  let token: string;

  beforeAll(async () => {
    await clients.start();
    const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: 'zoho-client', client_secret: 'zoho-secret', refresh_token: 'zoho-refresh' });
    token = ((await (await fetch(`${zoho.accountsUrl}/oauth/v2/token`, { method: 'POST', body: form })).json()) as { access_token: string }).access_token;
  });
  afterAll(() => clients.stop());

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${zoho.apiDomain}/crm/v8${path}`, {
      method,
      headers: { authorization: `Zoho-oauthtoken ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('has a row, with its crm-oas source, for every call the client names; each row is needed', async () => {
    const calls = await clientCalls();
    expect(calls.length).toBeGreaterThanOrEqual(20);
    expect(uncovered(calls, ZOHO_ROUTE_RULES)).toEqual([]);
    for (const rule of ZOHO_ROUTE_RULES) {
      expect([rule.method, rule.path, rule.source]).toEqual([rule.method, rule.path, expect.stringMatching(/v8\.0\/\w+\.json|Zoho's .* page/)]);
      // A row taken out leaves a call of the client without one: this test fails.
      const needed =
        rule.calls.length === 0 ||
        uncovered(
          calls,
          ZOHO_ROUTE_RULES.filter((r) => r !== rule),
        ).length > 0;
      expect([rule.method, rule.path, needed]).toEqual([rule.method, rule.path, true]);
      // And it names no call the client does not make.
      expect(rule.calls.filter((c) => !calls.includes(c))).toEqual([]);
    }
  });

  it('answers a call that has no row 404 INVALID_URL_PATTERN, and records it', async () => {
    const revenue = new ZohoRevenueClient(clients.client());
    expect(await revenue.findProductsByCodes(['NONE-1'])).toEqual([]);
    zoho.routeRules = ZOHO_ROUTE_RULES.filter((r) => r.path !== '/crm/v8/coql');
    try {
      const refused = await failureOf(revenue.findProductsByCodes(['NONE-1']));
      expect(refused).toMatchObject({ status: 404 });
      expect(refused.excerpt).toMatch(/^INVALID_URL_PATTERN/);
      expect(zoho.unruled).toContain('POST /crm/v8/coql');
    } finally {
      zoho.routeRules = ZOHO_ROUTE_RULES;
    }
  });

  it("answers a request that breaks a row with the row's error, where Zoho puts it", async () => {
    const deal = zoho.addRecord('Deals', undefined, { Deal_Name: 'Rules' });
    const cases: Array<[string, Promise<Response>, number, Json]> = [
      [
        'PATCH without notify_url',
        call('PATCH', '/actions/watch', { watch: [{ channel_id: 1, events: ['Deals.edit'], channel_expiry: new Date(Date.now() + 60_000).toISOString() }] }),
        202,
        { watch: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'notify_url' } }] },
      ],
      [
        'PATCH without events',
        call('PATCH', '/actions/watch', { watch: [{ channel_id: 1, notify_url: 'https://example.com/n' }] }),
        202,
        { watch: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'events' } }] },
      ],
      [
        'PATCH without channel_id',
        call('PATCH', '/actions/watch', { watch: [{ notify_url: 'https://example.com/n', events: ['Deals.edit'] }] }),
        202,
        { watch: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'channel_id' } }] },
      ],
      ['Get Records without fields', call('GET', '/Deals'), 400, { code: 'REQUIRED_PARAM_MISSING', details: { param_name: 'fields' } }],
      [
        '101 ids',
        call('GET', `/Deals?fields=id&ids=${Array.from({ length: 101 }, (_, i) => 4150868000000000000 + i).join(',')}`),
        400,
        { code: 'LIMIT_EXCEEDED', details: { param_name: 'ids', limit: 100 } },
      ],
      ['per_page 201', call('GET', '/Deals?fields=id&per_page=201'), 400, { code: 'INVALID_DATA', details: { param_name: 'per_page' } }],
      ['search past 2,000 hits', call('GET', '/Deals/search?word=Rules&page=11&per_page=200'), 400, { code: 'LIMIT_REACHED', details: { limit: 2000 } }],
      ['search without a term', call('GET', '/Products/search?page=1'), 400, { code: 'EXPECTED_PARAM_MISSING' }],
      ['COQL without select_query', call('POST', '/coql', {}), 400, { code: 'REQUIRED_PARAM_MISSING', details: { param_name: 'select_query' } }],
      [
        'a note without Parent_Id',
        call('POST', '/Notes', { data: [{ Note_Content: 'x' }] }),
        400,
        { data: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'Parent_Id' } }] },
      ],
      [
        '101 Quotes',
        call('POST', '/Quotes', { data: Array.from({ length: 101 }, () => ({ Subject: 'x' })) }),
        400,
        { code: 'LIMIT_EXCEEDED', details: { limit: 100 } },
      ],
      [
        'two records on a record path',
        call('PUT', `/Deals/${deal}`, { data: [{ Stage: 'Qualification' }, { Stage: 'Qualification' }] }),
        400,
        { code: 'LIMIT_EXCEEDED' },
      ],
      ['pipelines without layout_id', call('GET', '/settings/pipeline'), 400, { code: 'REQUIRED_PARAM_MISSING', details: { param_name: 'layout_id' } }],
      ['a delete without channel_ids', call('DELETE', '/actions/watch'), 400, { code: 'REQUIRED_PARAM_MISSING', details: { param_name: 'channel_ids' } }],
    ];
    for (const [what, answer, status, body] of cases) {
      const res = await answer;
      expect({ what, status: res.status, body: (await res.json()) as Json }).toMatchObject({ what, status, body });
    }
  });

  it('keeps the rows while the client works: every request it sends falls under one', async () => {
    const revenue = new ZohoRevenueClient(clients.client());
    const deal = zoho.addRecord('Deals', undefined, { Deal_Name: 'Kept' });
    await revenue.getRecord('Deals', deal);
    await revenue.pipelines('4150868000000091055', true);
    await revenue.findProductsByCodes(["O'Brien", 'back\\slash']);
    expect(zoho.unruled).not.toContain(expect.stringMatching(/Deals|pipeline|coql/));
    const served = [...zoho.rulesServed].map((r) => `${r.method} ${r.path}`);
    expect(served).toEqual(expect.arrayContaining(['GET /crm/v8/:module/:id', 'GET /crm/v8/settings/pipeline', 'POST /crm/v8/coql']));
  });
});
