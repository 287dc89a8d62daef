import type { SyncLogEntry } from '../../src/sync-log/sync-log.row.js';
import { recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntry } from '../support/tables.js';

const sender = new WebhookSender();
const SECRETS = ['zoho-secret', 'revoked-refresh-token', 'zoho-refresh'];

async function mappedPrompt(h: Harness): Promise<{ target: string; status: number }> {
  const project = h.service.addProject();
  const drawing = h.service.addDrawing(project.id);
  const recordId = h.zoho!.addRecord('Deals');
  await mapRecord(h, project.id, recordId);
  const body = recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: true });
  const res = await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, body, { secret: RECORD_PROMPT_SECRET });
  return { target: `Deals/${recordId}`, status: res.status };
}

async function finished(h: Harness, target: string): Promise<SyncLogEntry> {
  return waitFor(
    async () => {
      const entry = await syncLogEntry(h, { target });
      return entry && ['succeeded', 'failed', 'skipped'].includes(entry.status) ? entry : null;
    },
    15_000,
    `the entry of ${target}`,
  );
}

async function readiness(h: Harness): Promise<{ status: number; body: Record<string, Record<string, { status: string; message?: string }>> }> {
  const res = await fetch(`${h.url}/health/ready`);
  return { status: res.status, body: (await res.json()) as never };
}

describe('record CRM (Zoho) with a refresh token Zoho refuses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 13, recordCrm: true, env: { RECORD_CRM_REFRESH_TOKEN: 'revoked-refresh-token' } });
    h.service.addTemplate();
  });
  afterAll(() => h.close());

  it('fails the job at once with a clear reason, and does not ask again for every job', async () => {
    const first = await mappedPrompt(h);
    expect(first.status).toBe(200);
    const entry = await finished(h, first.target);
    expect(entry.status).toBe('failed');
    expect(entry.attempts).toBe(1);
    expect(entry.error).toContain('Zoho refused the refresh token (invalid_code)');
    expect(entry.error).toContain('RECORD_CRM_REFRESH_TOKEN');
    for (const secret of SECRETS) expect(entry.error).not.toContain(secret);
    expect(h.zoho!.api.requests).toHaveLength(0);

    const asked = h.zoho!.tokenRequests.length;
    const second = await mappedPrompt(h);
    expect((await finished(h, second.target)).status).toBe('failed');
    expect(h.zoho!.tokenRequests.length).toBe(asked);
    expect(h.zoho!.tokensIssued).toBe(0);
  });

  it('is still ready, with a warning naming the problem', async () => {
    const asked = h.zoho!.tokenRequests.length;
    for (let i = 0; i < 5; i++) {
      const { status, body } = await readiness(h);
      expect(status).toBe(200);
      expect(body.details.record_crm.status).toBe('degraded');
      expect(body.details.record_crm.message).toContain('invalid_code');
      for (const secret of SECRETS) expect(JSON.stringify(body)).not.toContain(secret);
    }
    expect(h.zoho!.tokenRequests.length).toBe(asked);
  });
});

describe('record CRM (Zoho) readiness and scope', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 13, recordCrm: true });
    h.service.addTemplate();
  });
  afterAll(() => h.close());

  it('reports up once a token can be obtained, without asking on every probe', async () => {
    for (let i = 0; i < 5; i++) {
      const { status, body } = await readiness(h);
      expect(status).toBe(200);
      expect(body.details.record_crm.status).toBe('up');
    }
    expect(h.zoho!.tokensIssued).toBe(1);
  });

  it('a scope mismatch fails the job without refreshing, and readiness warns', async () => {
    h.zoho!.scopeMismatch = true;
    const issued = h.zoho!.tokensIssued;
    const { target } = await mappedPrompt(h);
    const entry = await finished(h, target);
    expect(entry).toMatchObject({ status: 'failed', attempts: 1 });
    expect(entry.error).toContain('OAUTH_SCOPE_MISMATCH');
    expect(entry.error).toContain('reconnect to grant: ZohoCRM.modules.Deals.ALL, ZohoCRM.modules.attachments.ALL (Zoho refused');
    expect(h.zoho!.tokensIssued).toBe(issued);
    const { status, body } = await readiness(h);
    expect(status).toBe(200);
    expect(body.details.record_crm).toMatchObject({ status: 'degraded', message: expect.stringContaining('OAUTH_SCOPE_MISMATCH') });
    h.zoho!.scopeMismatch = false;
  });
});

describe("record CRM (Zoho) with a token answer naming an API domain that is not Zoho's", () => {
  let h: Harness;
  beforeAll(async () => {
    // Zoho's hosts and the environment's only: the simulator's own API domain is the one RECORD_CRM_API_DOMAIN sets.
    h = await startHarness({ redisDb: 13, recordCrm: true, env: { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false' } });
    h.service.addTemplate();
  });
  afterAll(() => h.close());

  it('refuses the token, so nothing is sent there, and says why without a secret; the configured domain still works', async () => {
    h.zoho!.answeredApiDomain = 'https://www.zohoapis.eu.evil.example';
    const refused = await mappedPrompt(h);
    expect(refused.status).toBe(200);
    const entry = await finished(h, refused.target);
    expect(entry.status).toBe('failed');
    expect(entry.error).toContain("the token answer named an API domain that is not Zoho's, refused: api_domain must be one of Zoho's data centres");
    expect(entry.error).toContain('https://www.zohoapis.eu.evil.example');
    for (const secret of SECRETS) expect(entry.error).not.toContain(secret);
    expect(h.zoho!.api.requests).toHaveLength(0);

    h.zoho!.answeredApiDomain = null; // the environment's API domain, though not Zoho's, is accepted
    const accepted = await mappedPrompt(h);
    expect((await finished(h, accepted.target)).status).toBe('succeeded');
  });
});
