import { SalesforceSim } from '../../sim/salesforce/index.js';
import { ADMIN_TOKEN, fastRetries, startHarness, type Harness } from '../support/harness.js';

type Json = Record<string, any>;

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const APPOINTMENT = 'i360__Appointment__c';
const SCHEMA = '/api/connections/appointment-crm/schema';

/**
 * `GET /api/connections/appointment-crm/schema` (docs/appointment-crm-salesforce.md): each answer costs the org 4 to 7
 * describe calls of its daily API allowance, so it is for admins, answered from a report kept per connection (renewed
 * by the check: Test, and the one every 15 minutes), within a limit per user. The org set in the environment.
 */
describe("the Salesforce org's table of needs (the schema route)", () => {
  const sim = new SalesforceSim();
  let h: Harness;

  beforeAll(async () => {
    await sim.start();
    h = await startHarness({
      redisDb: 9,
      env: {
        ...sim.daemonEnv(),
        AUTOMATION_POLL_SECONDS: '0',
        ADMIN_TOKENS: `vera:viewer:${VIEWER},otto:operator:${OPERATOR},ada:admin:admin-token-ada-0123456789`,
        SEARCH_MAX_PER_USER: '3',
        SEARCH_WINDOW_SECONDS: '600',
      },
      tune: fastRetries,
    });
  });
  afterAll(async () => {
    await h?.close();
    await sim.stop();
  });

  const get = (token: string) => fetch(`${h.url}${SCHEMA}`, { headers: { authorization: `Bearer ${token}` } });
  const orgReads = () => sim.instance.requests.filter((r) => r.method === 'GET' && /\/sobjects(\/[^/]+\/describe)?\/?$/.test(r.path)).length;
  const result = (schema: Json) => schema.needs.find((n: Json) => n.need === 'appointment_result');

  it('refuses viewers and operators (403), the table and the field picker alike, and asks the org nothing for them', async () => {
    const before = orgReads();
    for (const token of [VIEWER, OPERATOR]) {
      for (const answer of [
        await get(token),
        await fetch(`${h.url}/api/connections/appointment-crm/fields?object=${APPOINTMENT}`, { headers: { authorization: `Bearer ${token}` } }),
      ]) {
        expect(answer.status).toBe(403);
        expect(((await answer.json()) as Json).required_role).toBe('admin');
      }
    }
    expect(orgReads()).toBe(before);
  });

  it("answers admins from the report kept for the connection, renewed by the admin's check", async () => {
    const first = await get(ADMIN_TOKEN);
    expect(first.status).toBe(200);
    expect(result((await first.json()) as Json)).toMatchObject({ name: 'i360__Result__c', status: 'ok' });
    const read = orgReads();
    expect(read).toBeGreaterThanOrEqual(2);

    // The org changes; the kept report is answered, the org not asked again.
    sim.renameField(APPOINTMENT, 'i360__Result__c', 'Outcome__c');
    const again = await get(ADMIN_TOKEN);
    expect(result((await again.json()) as Json)).toMatchObject({ status: 'ok' });
    expect(orgReads()).toBe(read);

    // The check reads the org anew, and the table follows it.
    const tested = (await (await h.admin('/api/connections/appointment-crm/test', { method: 'POST' })).json()) as Json;
    expect(tested).toMatchObject({ ok: false, code: 'schema_mismatch' });
    const afterCheck = orgReads();
    expect(afterCheck).toBeGreaterThan(read);
    const renewed = await get(ADMIN_TOKEN);
    expect(result((await renewed.json()) as Json)).toMatchObject({ name: 'i360__Result__c', status: 'missing' });
    expect(orgReads()).toBe(afterCheck);
  });

  it('holds each admin to the limit per user, with Retry-After; another admin is not held back', async () => {
    // The admin token made 3 reads above: SEARCH_MAX_PER_USER in the window.
    const refused = await get(ADMIN_TOKEN);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as Json).message).toContain('SEARCH_MAX_PER_USER');
    expect((await get('admin-token-ada-0123456789')).status).toBe(200);
  });
});
