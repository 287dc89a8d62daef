import { startHarness, type Harness } from '../support/harness.js';

describe('health and metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 1 });
  });
  afterAll(() => h.close());

  it('answers liveness without auth', async () => {
    const res = await fetch(`${h.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('is ready when Postgres is migrated and Redis answers', async () => {
    const res = await fetch(`${h.url}/health/ready`);
    const body = (await res.json()) as { info: Record<string, unknown> };
    expect(res.status).toBe(200);
    expect(body.info).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });

  it('serves Prometheus text with process metrics', async () => {
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('crm_sync_process_cpu_user_seconds_total');
  });

  it('serves the OpenAPI document with the admin bearer scheme', async () => {
    const res = await fetch(`${h.url}/docs-json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { components: { securitySchemes: Record<string, unknown> } };
    expect(doc.components.securitySchemes.admin).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
