import { randomBytes } from 'node:crypto';
import { ZohoClients } from '../support/zoho-clients.js';

/** Every Zoho call counted by kind and in the day's total shared by replicas; the organization read once per period. */
describe('Zoho calls: counted, and the organization read once whatever the replicas', () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;

  beforeAll(() => clients.start());
  afterAll(() => clients.stop());

  /** Two replicas: clients of one connection and one QUEUE_PREFIX (one Redis), each with its own process state. */
  const replicas = () => {
    const prefix = `crm-sync-test-${randomBytes(4).toString('hex')}`;
    return [clients.client({ QUEUE_PREFIX: prefix }), clients.client({ QUEUE_PREFIX: prefix })] as const;
  };
  const reads = (path: string) => zoho.api.requestsTo('GET', path).length;

  it('reads /org and /users once for the readiness of two replicas and a check that follows, and again when asked anew', async () => {
    const [a, b] = replicas();
    const [org, users] = [reads('/crm/v8/org'), reads('/crm/v8/users')];

    expect(await a.accessProblem()).toBeNull();
    expect(await b.accessProblem()).toBeNull();
    // The scheduled check right after a readiness read uses that reading.
    expect(await b.connectedAccount(60_000)).toMatchObject({ orgId: '12345' });
    expect([reads('/crm/v8/org') - org, reads('/crm/v8/users') - users]).toEqual([1, 1]);

    // The Test button reads anew.
    await a.connectedAccount();
    expect([reads('/crm/v8/org') - org, reads('/crm/v8/users') - users]).toEqual([2, 2]);
  });

  it('reads them again only once the account recheck period (RECORD_CRM_ACCOUNT_RECHECK_SECONDS) has passed', async () => {
    const prefix = `crm-sync-test-${randomBytes(4).toString('hex')}`;
    const client = clients.client({ QUEUE_PREFIX: prefix, RECORD_CRM_ACCOUNT_RECHECK_SECONDS: '1' });
    const [org, users] = [reads('/crm/v8/org'), reads('/crm/v8/users')];

    expect(await client.accessProblem()).toBeNull();
    // The scheduled check asks for a reading no older than the period: within it, the readiness reading serves.
    await client.connectedAccount(1_000);
    expect(await client.accessProblem()).toBeNull();
    expect([reads('/crm/v8/org') - org, reads('/crm/v8/users') - users]).toEqual([1, 1]);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await client.accessProblem()).toBeNull();
    await client.connectedAccount(1_000);
    expect([reads('/crm/v8/org') - org, reads('/crm/v8/users') - users]).toEqual([2, 2]);
  });

  it("counts each call by kind in the metric and every replica's calls in the day's total", async () => {
    const [a, b] = replicas();
    const usageA = clients.usage.get(a)!;
    const before = zoho.api.requests.length + zoho.accounts.requests.length;

    await a.accessProblem(); // a token, /org, /users
    await b.searchRecords('Deals', { word: 'roof' });
    await b.listChangedRecords('Deals', { fields: ['Stage'], modifiedSince: null, pageToken: null });

    const zohoCalls = zoho.api.requests.length + zoho.accounts.requests.length - before;
    await expect(usageA.today()).resolves.toMatchObject({ calls: zohoCalls, allowance: 50_000, day: new Date().toISOString().slice(0, 10) });
    // Each replica's metric has its own calls, by kind.
    const text = await clients.metricsOf(a);
    expect(text).toContain('crm_sync_zoho_calls_total{kind="org"} 1');
    expect(text).toContain('crm_sync_zoho_calls_total{kind="users"} 1');
    expect(text).not.toContain('kind="search"');
    const textB = await clients.metricsOf(b);
    expect(textB).toContain('crm_sync_zoho_calls_total{kind="search"} 1');
    expect(textB).toContain('crm_sync_zoho_calls_total{kind="records_read"} 1');
  });
});
