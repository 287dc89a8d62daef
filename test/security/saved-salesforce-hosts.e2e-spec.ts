import { ConnectionsService } from '../../src/connections/connections.service.js';
import type { SalesforceAppointmentCrmConnection } from '../../src/config/connection-settings.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;

const salesforce = (loginUrl: string, instanceUrl: string | null): SalesforceAppointmentCrmConnection => ({
  kind: 'salesforce',
  loginUrl,
  clientId: 'client-id',
  clientSecret: 'client-secret-of-the-org',
  refreshToken: 'refresh-token-of-the-org',
  instanceUrl,
  preset: 'improveit360-classic',
  names: {},
  soldValue: 'Sold',
  pushes: 'crm-sync',
});

/**
 * A Salesforce connection saved while APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS was on keeps its login_url and
 * instance_url: with the variable off again, the client secret and refresh token must not go there.
 */
describe('saved Salesforce URLs checked again on load', () => {
  let custom: Harness;
  let strict: Harness;
  beforeAll(async () => {
    custom = await startHarness({ redisDb: 13, env: { APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS: 'true' } });
    // A second replica on the same database, with custom domains off.
    strict = await startHarness({ redisDb: 13, databaseUrl: custom.databaseUrl, env: { APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS: 'false' } });
  });
  afterAll(async () => {
    await strict?.close();
    await custom?.close();
  });

  const problemOnStrict = (word: string) => {
    const service = strict.app.get(ConnectionsService);
    return waitFor(
      async () => (await service.states()).find((s) => s.name === 'appointment_crm' && (s.problem ?? '').includes(word)),
      10_000,
      `${word} refused`,
    );
  };

  it('a custom login_url is not used once custom domains are off; the console says why', async () => {
    const settings = salesforce('https://login.example.net', 'https://org.example.net');
    await custom.app.get(ConnectionsService).save('appointment_crm', settings, 'test');
    expect(await custom.app.get(ConnectionsService).get('appointment_crm')).toEqual(settings);
    const state = await problemOnStrict('login_url');
    expect(await strict.app.get(ConnectionsService).get('appointment_crm')).toBeNull();
    expect(state.problem).toContain('login_url must be login.salesforce.com');
    expect(state.problem).toContain('APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS');
    expect(state.problem).not.toContain('client-secret-of-the-org');
    const listed = ((await (await strict.admin('/api/connections')).json()) as Json).items.find((c: Json) => c.name === 'appointment_crm');
    expect(listed).toMatchObject({ status: 'degraded', detail: expect.stringContaining('the saved Salesforce connection is not used') });
  });

  it('a custom instance_url behind a Salesforce login_url is not used either', async () => {
    await custom.app.get(ConnectionsService).save('appointment_crm', salesforce('https://login.salesforce.com', 'https://org.example.net'), 'test');
    const state = await problemOnStrict('instance_url');
    expect(state.problem).toContain('instance_url must be login.salesforce.com, test.salesforce.com or the org');
    expect(await strict.app.get(ConnectionsService).get('appointment_crm')).toBeNull();
  });

  it('a Salesforce org on its My Domain stays in use', async () => {
    const settings = salesforce('https://acme.my.salesforce.com', 'https://acme.my.salesforce.com');
    await custom.app.get(ConnectionsService).save('appointment_crm', settings, 'test');
    const service = strict.app.get(ConnectionsService);
    expect(
      await waitFor(
        async () => ((await service.get('appointment_crm')) as SalesforceAppointmentCrmConnection | null)?.loginUrl === settings.loginUrl,
        10_000,
        'the row read',
      ),
    ).toBe(true);
  });
});
