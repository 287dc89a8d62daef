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
      service: { baseUrl: 'https://api.example.com/v1', maxRps: 10, proposalTemplateId: null },
      webhooks: { secrets: { events: ['a', 'b', 'c'], appointmentPrompt: [], recordPrompt: [] }, toleranceSeconds: 300, dedupeWindowSeconds: 3900 },
      appointmentCrm: null,
      recordCrm: null,
      reconcileIntervalSeconds: 900,
    });
  });

  it('treats a blank value as unset', () => {
    expect(loadConfig({ ...valid, PORT: '', REDIS_URL: ' ' })).toMatchObject({ port: 3000, redisUrl: 'redis://127.0.0.1:6379' });
  });

  it.each([
    ['a missing required variable', { SERVICE_API_TOKEN: undefined }, 'SERVICE_API_TOKEN', 'is required'],
    ['a malformed URL', { SERVICE_API_BASE_URL: 'not a url' }, 'SERVICE_API_BASE_URL', 'must be an http(s) URL, e.g. https://api.example.com/v1'],
    ['a base URL without /v1', { SERVICE_API_BASE_URL: 'https://api.example.com' }, 'SERVICE_API_BASE_URL', 'must end in /v1'],
    ['a wrong database scheme', { DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', 'must be a postgres:// URL'],
    ['a non-integer', { PORT: '80a' }, 'PORT', 'must be an integer'],
    ['an integer out of range', { SERVICE_API_MAX_RPS: '0' }, 'SERVICE_API_MAX_RPS', 'must be at least 1'],
    ['a negative interval', { RECONCILE_INTERVAL_SECONDS: '-5' }, 'RECONCILE_INTERVAL_SECONDS', 'must be 0 (off) or more'],
    ['a value outside its list', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent'],
    ['a too short admin token', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN', 'must be at least 16 characters'],
    ['an empty secret list', { WEBHOOK_SECRETS_EVENTS: ' , ' }, 'WEBHOOK_SECRETS_EVENTS', 'is required (comma-separated secrets)'],
    [
      'a CRM base URL without its key',
      { APPOINTMENT_CRM_BASE_URL: 'http://crm.local' },
      'APPOINTMENT_CRM_API_KEY',
      'is required when APPOINTMENT_CRM_BASE_URL is set',
    ],
  ])('names the variable and the reason for %s', (_name, change, variable, reason) => {
    expect(problemsOf({ ...valid, ...change })).toEqual([{ variable, reason }]);
  });

  it('reports every bad variable at once and never a value', () => {
    const problems = problemsOf({ ...valid, SERVICE_API_TOKEN: undefined, ADMIN_TOKEN: 'tiny-secret', PORT: 'x' });
    expect(problems.map((p) => p.variable).sort()).toEqual(['ADMIN_TOKEN', 'PORT', 'SERVICE_API_TOKEN']);
    expect(JSON.stringify(problems)).not.toContain('tiny-secret');
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
