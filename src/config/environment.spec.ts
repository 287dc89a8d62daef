import { loadConfig } from './app-config.js';
import { ConfigError } from './environment.js';

const valid = {
  SERVICE_API_BASE_URL: 'https://api.example.com/v1',
  SERVICE_API_TOKEN: 'token-123',
  WEBHOOK_SECRETS_EVENTS: 'a, b ,,c',
  ADMIN_TOKEN: 'admin-token-long-enough',
};

function problemsOf(env: Record<string, string | undefined>): Array<{ variable: string; reason: string }> {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe(loadConfig.name, () => {
  it('applies the documented defaults and splits secret lists', () => {
    const config = loadConfig(valid);
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/crm_sync',
      redisUrl: 'redis://127.0.0.1:6379',
      service: { maxRps: 10, proposalTemplateId: null },
      // The service's whole retry schedule, its time-outs included (4,005 s), plus a margin.
      webhooks: { toleranceSeconds: 300, dedupeWindowSeconds: 4200 },
      http: { maxJsonBytes: 10 * 1024 * 1024 },
      downloads: { allowPrivateAddresses: false, deadlineMs: 300_000 },
      mappingImport: { maxBytes: 20 * 1024 * 1024, maxRows: 100_000, maxRecordBytes: 4096 },
      environmentConnections: {
        service: { baseUrl: 'https://api.example.com/v1', token: 'token-123' },
        webhooks: { events: ['a', 'b', 'c'], appointmentPrompt: [], recordPrompt: [] },
        appointmentCrm: null,
        recordCrm: null,
      },
      adminToken: 'admin-token-long-enough',
      adminTokens: [{ name: 'admin', role: 'admin', token: 'admin-token-long-enough' }],
      reconcileIntervalSeconds: 900,
      automationPollSeconds: 60,
    });
  });

  it('reads DOWNLOADS_ALLOW_PRIVATE_ADDRESSES as true or false and refuses anything else', () => {
    expect(loadConfig({ ...valid, DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'TRUE' }).downloads.allowPrivateAddresses).toBe(true);
    expect(loadConfig({ ...valid, DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'false' }).downloads.allowPrivateAddresses).toBe(false);
    expect(problemsOf({ ...valid, DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'yes' })).toEqual([
      { variable: 'DOWNLOADS_ALLOW_PRIVATE_ADDRESSES', reason: 'must be true or false' },
    ]);
  });

  it('starts with nothing set: no connection, no admin token (made on the first start), the key in data/connections.key', () => {
    expect(loadConfig({})).toMatchObject({
      environmentConnections: { service: null, webhooks: null, appointmentCrm: null, recordCrm: null },
      adminToken: null,
      adminTokens: [],
      connections: { key: null, keyFile: 'data/connections.key' },
      publicUrl: null,
    });
  });

  it('lists only ADMIN_TOKENS when ADMIN_TOKEN is unset', () => {
    const config = loadConfig({ ADMIN_TOKENS: 'vic:viewer:viewer-token-0123456789' });
    expect(config.adminToken).toBeNull();
    expect(config.adminTokens).toEqual([{ name: 'vic', role: 'viewer', token: 'viewer-token-0123456789' }]);
  });

  it('accepts a CONNECTIONS_KEY of 32 bytes in hex or base64', () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ CONNECTIONS_KEY: key.toString('hex') }).connections.key).toBe(key.toString('hex'));
    expect(loadConfig({ CONNECTIONS_KEY: key.toString('base64') }).connections.key).toBe(key.toString('base64'));
  });

  it("limits Zoho's domains unless RECORD_CRM_ALLOW_CUSTOM_DOMAINS=true, trusting the ones the environment sets", () => {
    expect(loadConfig(valid).zohoDomains).toEqual({ allowCustom: false, accountsUrl: null, apiDomain: null });
    expect(loadConfig({ ...valid, RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'true' }).zohoDomains.allowCustom).toBe(true);
    expect(loadConfig({ ...valid, RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false' }).zohoDomains.allowCustom).toBe(false);
    expect(loadConfig({ ...valid, RECORD_CRM_ACCOUNTS_URL: 'https://proxy.internal/' }).zohoDomains).toMatchObject({ accountsUrl: 'https://proxy.internal' });
  });

  it('treats a blank value as unset', () => {
    expect(loadConfig({ ...valid, PORT: '', REDIS_URL: ' ' })).toMatchObject({ port: 3000, redisUrl: 'redis://127.0.0.1:6379' });
  });

  it.each([
    ['a service URL without its token', { SERVICE_API_TOKEN: undefined }, 'SERVICE_API_TOKEN', 'is required when SERVICE_API_BASE_URL is set'],
    ['a service token without its URL', { SERVICE_API_BASE_URL: undefined }, 'SERVICE_API_BASE_URL', 'is required when SERVICE_API_TOKEN is set'],
    ['a malformed URL', { SERVICE_API_BASE_URL: 'not a url' }, 'SERVICE_API_BASE_URL', 'must be an http(s) URL, e.g. https://api.example.com/v1'],
    ['a base URL without /v1', { SERVICE_API_BASE_URL: 'https://api.example.com' }, 'SERVICE_API_BASE_URL', 'must end in /v1'],
    ['a wrong database scheme', { DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', 'must be a postgres:// URL'],
    ['a non-integer', { PORT: '80a' }, 'PORT', 'must be an integer'],
    ['an integer out of range', { SERVICE_API_MAX_RPS: '0' }, 'SERVICE_API_MAX_RPS', 'must be at least 1'],
    ['a negative interval', { RECONCILE_INTERVAL_SECONDS: '-5' }, 'RECONCILE_INTERVAL_SECONDS', 'must be 0 (off) or more'],
    ['a negative full-pass interval', { RECONCILE_FULL_INTERVAL_SECONDS: '-1' }, 'RECONCILE_FULL_INTERVAL_SECONDS', 'must be 0 (off) or more'],
    ['a value outside its list', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent'],
    ['a too short admin token', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN', 'must be at least 16 characters'],
    [
      'an empty secret list',
      { WEBHOOK_SECRETS_EVENTS: ' , ' },
      'WEBHOOK_SECRETS_EVENTS',
      'is required (comma-separated secrets) when a webhook secret is set in the environment',
    ],
    [
      'a prompt secret without the events secret',
      { WEBHOOK_SECRETS_EVENTS: undefined, WEBHOOK_SECRETS_RECORD_PROMPT: 'p' },
      'WEBHOOK_SECRETS_EVENTS',
      'is required (comma-separated secrets) when a webhook secret is set in the environment',
    ],
    [
      'an allowance of custom Zoho domains that is no boolean',
      { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'yes' },
      'RECORD_CRM_ALLOW_CUSTOM_DOMAINS',
      'must be true or false',
    ],
    ['a key of the wrong size', { CONNECTIONS_KEY: 'abcd'.repeat(8) }, 'CONNECTIONS_KEY', 'must be 32 bytes, written as 64 hex digits or 44 base64 characters'],
    [
      'a session secret of the wrong size',
      { SESSION_SECRET: 'abcd'.repeat(8) },
      'SESSION_SECRET',
      'must be 32 bytes, written as 64 hex digits or 44 base64 characters',
    ],
    [
      'a proxy that is no address',
      { TRUST_PROXY: '10.0.0.1, proxy.local, 10.0.0.0/33' },
      'TRUST_PROXY',
      'must be IP addresses or CIDR ranges, comma-separated (not: proxy.local, 10.0.0.0/33)',
    ],
    [
      'a CRM base URL without its key',
      { APPOINTMENT_CRM_BASE_URL: 'http://crm.local' },
      'APPOINTMENT_CRM_API_KEY',
      'is required when APPOINTMENT_CRM_BASE_URL is set',
    ],
  ])('names the variable and the reason for %s', (_name, change, variable, reason) => {
    expect(problemsOf({ ...valid, ...change })).toEqual([{ variable, reason }]);
  });

  it('trusts no proxy by default, only the addresses and ranges of TRUST_PROXY when set', () => {
    expect(loadConfig(valid).trustProxy).toEqual([]);
    expect(loadConfig({ ...valid, TRUST_PROXY: '10.0.0.5, 172.16.0.0/12,::1,fd00::/8' }).trustProxy).toEqual(['10.0.0.5', '172.16.0.0/12', '::1', 'fd00::/8']);
  });

  it('takes the sign-in and search limits from SIGN_IN_* and SEARCH_* (10 and 30 a 60 s window by default), refusing nonsense', () => {
    expect(loadConfig(valid)).toMatchObject({ signIn: { maxFailures: 10, windowSeconds: 60 }, search: { maxPerUser: 30, windowSeconds: 60 } });
    const set = loadConfig({ ...valid, SIGN_IN_MAX_FAILURES: '3', SIGN_IN_WINDOW_SECONDS: '900', SEARCH_MAX_PER_USER: '5', SEARCH_WINDOW_SECONDS: '120' });
    expect(set).toMatchObject({ signIn: { maxFailures: 3, windowSeconds: 900 }, search: { maxPerUser: 5, windowSeconds: 120 } });
    const problems = problemsOf({ ...valid, SIGN_IN_MAX_FAILURES: '0', SIGN_IN_WINDOW_SECONDS: '100000', SEARCH_MAX_PER_USER: 'many' });
    expect(problems.map((p) => p.variable).sort()).toEqual(['SEARCH_MAX_PER_USER', 'SIGN_IN_MAX_FAILURES', 'SIGN_IN_WINDOW_SECONDS']);
  });

  it('takes SESSION_SECRET as given, unset by default', () => {
    expect(loadConfig(valid).sessionSecret).toBeNull();
    const secret = Buffer.alloc(32, 9).toString('base64');
    expect(loadConfig({ ...valid, SESSION_SECRET: secret }).sessionSecret).toBe(secret);
  });

  it('takes the job backoff from JOB_BACKOFF_BASE_MS (5 s by default), at least 10 ms', () => {
    expect(loadConfig(valid).jobs.backoffBaseMs).toBe(5_000);
    expect(loadConfig({ ...valid, JOB_BACKOFF_BASE_MS: '167' }).jobs.backoffBaseMs).toBe(167);
    expect(problemsOf({ ...valid, JOB_BACKOFF_BASE_MS: '5' })).toEqual([{ variable: 'JOB_BACKOFF_BASE_MS', reason: 'must be at least 10' }]);
  });

  it('reports every bad variable at once and never a value', () => {
    const problems = problemsOf({ ...valid, SERVICE_API_TOKEN: undefined, ADMIN_TOKEN: 'tiny-secret', PORT: 'x', CONNECTIONS_KEY: 'secret-key-material' });
    expect(problems.map((p) => p.variable).sort()).toEqual(['ADMIN_TOKEN', 'CONNECTIONS_KEY', 'PORT', 'SERVICE_API_TOKEN']);
    expect(JSON.stringify(problems)).not.toContain('tiny-secret');
    expect(JSON.stringify(problems)).not.toContain('secret-key-material');
  });

  it('enables the record CRM only with its credentials', () => {
    expect(problemsOf({ ...valid, RECORD_CRM_API_DOMAIN: 'https://www.zohoapis.eu' }).map((p) => p.variable)).toEqual([
      'RECORD_CRM_CLIENT_ID',
      'RECORD_CRM_CLIENT_SECRET',
      'RECORD_CRM_REFRESH_TOKEN',
    ]);
    const config = loadConfig({
      ...valid,
      RECORD_CRM_API_DOMAIN: 'https://www.zohoapis.eu',
      RECORD_CRM_CLIENT_ID: 'i',
      RECORD_CRM_CLIENT_SECRET: 's',
      RECORD_CRM_REFRESH_TOKEN: 'r',
    });
    expect(config.environmentConnections.recordCrm).toMatchObject({ accountsUrl: 'https://accounts.zoho.com', apiDomain: 'https://www.zohoapis.eu' });
  });
});
