import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { QUEUES } from '../../src/queues/queues.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { mapAppointment, settled } from '../support/appointment-crm.js';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { ZohoSim } from '../../sim/zoho/index.js';
import { ZOHO_SCOPES } from '../../src/record-crm/zoho/zoho-scopes.js';
import {
  CapturingLogger,
  EVENTS_SECRET,
  RECORD_PROMPT_SECRET,
  startHarness,
  TEST_CONNECTIONS_KEY,
  waitFor,
  type Harness,
  type HarnessOptions,
} from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { connectionBinding } from '../../src/connections/sealed-binding.js';
import { parseConnectionsKey } from '../../src/config/connections-key.js';
import { LegacySeals1763700013000 } from '../../src/database/migrations/1763700013000-legacy-seals.js';
import type { QueryRunner } from 'typeorm';

type Json = any;

/*
 * Connections set from the console (docs/operations.md "Connections"): tested before saved, sealed at rest, never answered or
 * logged, read by every replica within seconds, kept over a restart; environment connections win and are read-only.
 * Redis db 11, shared with other files through each harness's own queue prefix.
 */
const REDIS_DB = 11;
/** Blank counts as unset: a daemon whose connections all come from the console. */
const NO_ENVIRONMENT_CONNECTIONS = {
  SERVICE_API_BASE_URL: '',
  SERVICE_API_TOKEN: '',
  WEBHOOK_SECRETS_EVENTS: '',
  WEBHOOK_SECRETS_APPOINTMENT_PROMPT: '',
  WEBHOOK_SECRETS_RECORD_PROMPT: '',
};
const OTHER_KEY = 'fedcba9876543210'.repeat(4);
const sender = new WebhookSender();

const NEW_EVENTS_SECRET = 'whsec-console-events-0001';
const ROTATED_EVENTS_SECRET = 'whsec-console-events-0002';
const APPOINTMENT_KEY = 'appt-key-from-the-console-0001';

function consoleHarness(extra: Partial<HarnessOptions> = {}): Promise<Harness> {
  return startHarness({ redisDb: REDIS_DB, ...extra, env: { ...NO_ENVIRONMENT_CONNECTIONS, ...(extra.env ?? {}) } });
}

async function json(res: Response): Promise<Json> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const connection = async (h: Harness, name: string): Promise<Json> =>
  ((await json(await h.admin('/api/connections'))).items as Json[]).find((i) => i.name === name);

const deliver = (h: Harness, secret: string) => sender.deliverOnce(`${h.url}/webhooks/events`, events.projectCreated(h.service.addProject()), { secret });

describe('connections from the console', () => {
  const logs = new CapturingLogger();
  const appointmentCrm = new AppointmentCrmSim({ apiKey: APPOINTMENT_KEY });
  let h: Harness;
  /** Every API answer of this suite, searched for secrets at the end. */
  const answers: string[] = [];
  const admin = async (path: string, init?: RequestInit & { json?: unknown }) => {
    const res = await h.admin(path, init);
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json, headers: res.headers };
  };

  beforeAll(async () => {
    await appointmentCrm.start();
    h = await consoleHarness({ logger: logs });
  });
  afterAll(async () => {
    await h?.close();
    await appointmentCrm.stop();
  });

  it('starts with no connection at all: the console is served, the webhooks answer 404, every connection says not_configured', async () => {
    expect((await fetch(`${h.url}/admin`)).status).toBe(200);
    expect((await deliver(h, EVENTS_SECRET)).status).toBe(404);
    const reconcile = await admin('/api/reconcile', { method: 'POST' });
    expect(reconcile.status).toBe(409);
    expect(reconcile.body.message).toBe('the service is not connected: connect it on the Connections screen first');
    const { body } = await admin('/api/connections');
    expect(body.items.map((i: Json) => [i.name, i.status, i.source])).toEqual([
      ['service', 'not_configured', null],
      ['appointment_crm', 'not_configured', null],
      ['record_crm', 'not_configured', null],
      ['webhooks', 'not_configured', null],
    ]);
    expect(body.items.map((i: Json) => i.code)).toEqual(['not_configured', 'not_configured', 'not_configured', 'not_configured']);
    expect(body.key).toMatchObject({ ok: true, origin: 'environment' });
    expect(body.webhook_addresses.events).toMatch(/\/webhooks\/events$/);
    expect(body.redirect_uri).toMatch(/\/admin\/connections\/record-crm\/callback$/);
  });

  it('tests the service before saving it: a refused token saves nothing and says why; a good one connects', async () => {
    const refused = await admin('/api/connections/service', { method: 'PUT', json: { base_url: h.service.apiBaseUrl, token: 'not-the-token' } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/^not saved: service R2 GET \/proposal_templates failed: HTTP 401/);
    expect(refused.body.code).toBe('unauthorized');
    expect((await connection(h, 'service')).status).toBe('not_configured');

    const unreachable = await admin('/api/connections/service', { method: 'PUT', json: { base_url: 'http://127.0.0.1:9/v1', token: h.service.token } });
    expect(unreachable.status).toBe(422);
    expect(unreachable.body.message).toMatch(/network|ECONNREFUSED/);
    expect(unreachable.body.code).toBe('network');
    // Something answering, but not the service's API: its address is wrong.
    const notTheApi = await admin('/api/connections/service', { method: 'PUT', json: { base_url: `${h.url}/v1`, token: h.service.token } });
    expect(notTheApi.status).toBe(422);
    expect(notTheApi.body.code).toBe('not_found');

    const badUrl = await admin('/api/connections/service', { method: 'PUT', json: { base_url: 'http://127.0.0.1:9/api', token: 'x' } });
    expect(badUrl.status).toBe(400);
    expect(JSON.stringify(badUrl.body.message)).toContain('base_url must end in /v1');
    // Beside the texts, one entry per failure with a stable code (the console's words are picked by it).
    expect(badUrl.body.error).toBe('Bad Request');
    expect(badUrl.body.errors).toEqual([{ field: 'base_url', code: 'not_api_v1', message: 'base_url must end in /v1' }]);
    expect(badUrl.body.message).toEqual(badUrl.body.errors.map((e: Json) => e.message));
    const missing = await admin('/api/connections/service', { method: 'PUT', json: { base_url: 'ftp://x', token: '', extra: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'extra', code: 'whitelistValidation', message: 'property extra should not exist' },
        { field: 'base_url', code: 'not_http_url', message: 'base_url must be an http(s) URL' },
        { field: 'token', code: 'required', message: 'token is required' },
      ]),
    );
    const long = await admin('/api/connections/service', { method: 'PUT', json: { base_url: h.service.apiBaseUrl, token: 'x'.repeat(4097) } });
    expect(long.body.errors).toEqual([{ field: 'token', code: 'too_long', limit: 4096, message: 'token must be shorter than or equal to 4096 characters' }]);

    const saved = await admin('/api/connections/service', { method: 'PUT', json: { base_url: h.service.apiBaseUrl, token: h.service.token } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ name: 'service', source: 'console', status: 'connected', updated_by: 'admin', read_only: false });
    expect(saved.body.settings).toEqual({ base_url: h.service.apiBaseUrl, token_last4: h.service.token.length >= 12 ? h.service.token.slice(-4) : null });
    expect(saved.body.checked_at).toEqual(expect.any(String));

    // The next call to the service uses it: a mapping associated through A2.
    const project = h.service.addProject();
    const created = await admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: '777000111', project_id: project.id } });
    expect(created.status).toBe(201);
    expect((await admin('/api/mappings/associate', { method: 'POST' })).status).toBe(202);
    await waitFor(async () => (await h.database.query<Json[]>(`SELECT status FROM mapping WHERE appointment_id = '777000111'`))[0]?.status === 'associated');
    expect(h.service.requestsTo('POST', '/v1/appointment_crm/batch/associate_project').at(-1)?.headers.authorization).toBe(`Bearer ${h.service.token}`);
  });

  it('tests the appointment CRM before saving it, and the next push uses it', async () => {
    const refused = await admin('/api/connections/appointment-crm', { method: 'PUT', json: { base_url: appointmentCrm.url, api_key: 'wrong-key' } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/HTTP 401/);
    expect(refused.body.code).toBe('unauthorized');
    expect((await connection(h, 'appointment_crm')).status).toBe('not_configured');

    const saved = await admin('/api/connections/appointment-crm', { method: 'PUT', json: { base_url: appointmentCrm.url, api_key: APPOINTMENT_KEY } });
    expect(saved.status).toBe(200);
    expect(saved.body.settings).toEqual({ base_url: appointmentCrm.url, api_key_last4: APPOINTMENT_KEY.slice(-4) });

    const webhooks = await admin('/api/connections/webhooks', { method: 'PUT', json: { events: [NEW_EVENTS_SECRET] } });
    expect(webhooks.status).toBe(200);
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    appointmentCrm.addAppointment('4400');
    await mapAppointment(h, project.id, '4400');
    const res = await sender.deliverOnce(`${h.url}/webhooks/events`, events.drawingUpdated(h.service.drawingView(drawing.id)), { secret: NEW_EVENTS_SECRET });
    expect(res.status).toBe(200);
    const entries = await settled(h, project.id, ['push_drawings']);
    expect(entries.find((e) => e.kind === 'push_drawings')).toMatchObject({ status: 'succeeded', target: '4400' });
    expect(appointmentCrm.filesOf('4400', 'drawing')).toHaveLength(1);
  });

  it('sets the webhook secrets, answers the addresses to enter in the service, and rotates with old and new together', async () => {
    const rotated = await admin('/api/connections/webhooks', {
      method: 'PUT',
      json: { events: [ROTATED_EVENTS_SECRET, `…${NEW_EVENTS_SECRET.slice(-4)}`], record_prompt: ['whsec-record-prompt-console-01'] },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.addresses).toEqual({
      events: expect.stringMatching(/\/webhooks\/events$/),
      appointment_prompt: expect.stringMatching(/\/webhooks\/appointment-crm\/export-prompt$/),
      record_prompt: expect.stringMatching(/\/webhooks\/record-crm\/export-prompt$/),
    });
    expect(rotated.body.settings.secrets_last4).toEqual({ events: ['0002', '0001'], appointment_prompt: [], record_prompt: ['e-01'] });
    expect((await deliver(h, ROTATED_EVENTS_SECRET)).status).toBe(200);
    expect((await deliver(h, NEW_EVENTS_SECRET)).status).toBe(200);
    expect((await deliver(h, 'whsec-never-set-anywhere-000')).status).toBe(401);

    const unknownKeep = await admin('/api/connections/webhooks', { method: 'PUT', json: { events: ['…zzzz'] } });
    expect(unknownKeep.status).toBe(422);
    expect(unknownKeep.body.message).toBe('events: no current secret ends in zzzz');
    expect(unknownKeep.body).toMatchObject({ code: 'kept_secret_unknown', field: 'events' });
    const short = await admin('/api/connections/webhooks', { method: 'PUT', json: { events: ['short'] } });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ field: 'events', code: 'secret_too_short', message: expect.stringContaining('at least 16 characters') }]);

    await admin('/api/connections/webhooks', { method: 'PUT', json: { events: [`…${ROTATED_EVENTS_SECRET.slice(-4)}`] } });
    expect((await deliver(h, NEW_EVENTS_SECRET)).status).toBe(401);
    expect((await deliver(h, ROTATED_EVENTS_SECRET)).status).toBe(200);
  });

  it('tests a connection on demand and records when; a viewer may not', async () => {
    const tested = await admin('/api/connections/service/test', { method: 'POST' });
    expect(tested.body).toEqual({ ok: true, code: null, detail: expect.stringContaining('accepted the token') });
    const unknown = await admin('/api/connections/ftp/test', { method: 'POST' });
    expect(unknown.status).toBe(404);
    const before = (await connection(h, 'appointment_crm')).checked_at;
    await new Promise((r) => setTimeout(r, 5));
    const after = await admin('/api/connections/appointment-crm/test', { method: 'POST' });
    expect(after.body).toEqual({ ok: true, code: null, detail: expect.stringContaining('accepted the key') });
    expect((await connection(h, 'appointment_crm')).checked_at > before).toBe(true);
    const viewerOnly = await fetch(`${h.url}/api/connections/service/test`, { method: 'POST' });
    expect(viewerOnly.status).toBe(401);
  });

  it('checks every configured connection every 15 minutes: a refused token shows degraded, the next good check clears it', async () => {
    const { MaintenanceTasksService } = await import('../../src/queues/maintenance.service.js');
    const task = h.app.get(MaintenanceTasksService).get('check_connections')!;
    expect(task.everyMs).toBe(15 * 60_000);
    // Its first run comes a period after the deployment starts, not at once.
    const scheduler = await h.app.get<Queue>(getQueueToken(QUEUES.maintenance)).getJobScheduler('check_connections');
    expect(Number(scheduler!.next) - Date.now()).toBeGreaterThan(14 * 60_000);
    const before = (await connection(h, 'appointment_crm')).checked_at;
    h.service.injectFault({ method: 'GET', path: '/v1/proposal_templates', times: 1, status: 401, body: { error: 'token revoked' } });
    await task.run('schedule', {});
    expect(await connection(h, 'service')).toMatchObject({ status: 'degraded', code: 'unauthorized', detail: expect.stringContaining('HTTP 401') });
    expect((await connection(h, 'appointment_crm')).checked_at > before).toBe(true);
    expect((await connection(h, 'record_crm')).checked_at).toBeNull(); // not configured: not checked
    expect(logs.lines.some((l) => l.includes('the service connection failed its check') && l.includes('HTTP 401'))).toBe(true);
    await task.run('schedule', {});
    expect(await connection(h, 'service')).toMatchObject({ status: 'connected', code: null, detail: expect.stringContaining('accepted the token') });
  });

  it('keeps the connections over a restart, and a second replica sees a change within 10 s', async () => {
    // It reads the rows again every 200 ms rather than 2 s: what is proved is that a change reaches it, not the period.
    const replica = await consoleHarness({ databaseUrl: h.databaseUrl, tune: (c) => (c.connections.refreshMs = 200) });
    try {
      expect((await connection(replica, 'service')).status).toBe('connected');
      expect((await deliver(replica, ROTATED_EVENTS_SECRET)).status).toBe(200);

      const next = 'whsec-console-events-0003';
      const changedAt = Date.now();
      expect((await admin('/api/connections/webhooks', { method: 'PUT', json: { events: [next] } })).status).toBe(200);
      await waitFor(async () => (await deliver(replica, next)).status === 200, 10_000, 'the replica to take the new secret');
      console.info(`connections.e2e: the second replica took the new secret after ${Date.now() - changedAt} ms`);
      expect((await deliver(replica, ROTATED_EVENTS_SECRET)).status).toBe(401);
    } finally {
      await replica.close();
    }
  });

  it('a wrong CONNECTIONS_KEY says so on each console connection and leaves environment connections working', async () => {
    const wrongKey = await startHarness({
      redisDb: REDIS_DB,
      databaseUrl: h.databaseUrl,
      env: { CONNECTIONS_KEY: OTHER_KEY, WEBHOOK_SECRETS_EVENTS: '', WEBHOOK_SECRETS_APPOINTMENT_PROMPT: '', WEBHOOK_SECRETS_RECORD_PROMPT: '' },
    });
    try {
      const service = await connection(wrongKey, 'service');
      expect(service).toMatchObject({ source: 'environment', status: 'connected', read_only: true });
      const webhooks = await connection(wrongKey, 'webhooks');
      expect(webhooks).toMatchObject({ source: 'console', status: 'degraded', code: 'secrets_unreadable', settings: null });
      expect(webhooks.detail).toMatch(/cannot be read with this CONNECTIONS_KEY/);
      expect((await deliver(wrongKey, 'whsec-console-events-0003')).status).toBe(404);
      // The environment's service still works.
      const tested = await wrongKey.admin('/api/connections/service/test', { method: 'POST' });
      expect(await tested.json()).toEqual({ ok: true, code: null, detail: expect.stringContaining('accepted the token') });
    } finally {
      await wrongKey.close();
    }
  });

  it('environment connections are read-only: PUT and DELETE answer 409 naming the variables', async () => {
    const fromEnvironment = await startHarness({ redisDb: REDIS_DB });
    try {
      const put = await fromEnvironment.admin('/api/connections/service', { method: 'PUT', json: { base_url: 'http://127.0.0.1:1/v1', token: 'x' } });
      expect(put.status).toBe(409);
      expect((await json(put)).message).toContain('SERVICE_API_BASE_URL');
      const del = await fromEnvironment.admin('/api/connections/webhooks', { method: 'DELETE' });
      expect(del.status).toBe(409);
      const item = await connection(fromEnvironment, 'webhooks');
      expect(item).toMatchObject({ source: 'environment', read_only: true, status: 'connected' });
      expect(JSON.stringify(item)).not.toContain(EVENTS_SECRET);
    } finally {
      await fromEnvironment.close();
    }
  });

  it('without a usable key, console edits answer 409 saying why', async () => {
    const keyless = await consoleHarness({ env: { CONNECTIONS_KEY: '', CONNECTIONS_KEY_FILE: '/etc/hostname/crm-sync/connections.key' } });
    try {
      const put = await keyless.admin('/api/connections/webhooks', { method: 'PUT', json: { events: ['whsec-keyless-0000000001'] } });
      expect(put.status).toBe(409);
      expect((await json(put)).message).toMatch(
        /secrets cannot be stored: the key file \/etc\/hostname\/crm-sync\/connections.key cannot be read \(ENOTDIR\)\. Set CONNECTIONS_KEY/,
      );
      expect((await json(await keyless.admin('/api/connections'))).key).toMatchObject({ ok: false });
    } finally {
      await keyless.close();
    }
  });

  it('removes a console connection (audited), and never shows a secret in an answer, a log line or a plain-text column', async () => {
    const removed = await admin('/api/connections/appointment-crm', { method: 'DELETE' });
    expect(removed.body).toEqual({ removed: true, detail: 'appointment CRM connection removed' });
    expect((await connection(h, 'appointment_crm')).status).toBe('not_configured');
    const audit = await h.database.query<Json[]>(`SELECT detail FROM sync_log WHERE kind = 'admin_write' ORDER BY id`);
    expect(audit.map((a) => a.detail)).toEqual(
      expect.arrayContaining(['appointment CRM connection removed by admin', expect.stringMatching(/^service connection set to .* by admin$/)]),
    );

    const secrets = [h.service.token, APPOINTMENT_KEY, NEW_EVENTS_SECRET, ROTATED_EVENTS_SECRET, 'whsec-console-events-0003', 'whsec-record-prompt-console-01'];
    // Asynchronously: a blocked event loop could hold a lock pg_dump waits for.
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--data-only', h.databaseUrl], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(dump).toContain('COPY public.connection');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      for (const answer of answers) expect(answer).not.toContain(secret);
      for (const line of logs.lines) expect(line).not.toContain(secret);
    }
    expect(logs.lines.length).toBeGreaterThan(10);
  });
});

describe('connecting Zoho CRM through OAuth (authorization code)', () => {
  const zoho = new ZohoSim();
  const logs = new CapturingLogger();
  let h: Harness;
  const callbackPath = '/admin/connections/record-crm/callback';

  beforeAll(async () => {
    await zoho.start();
    h = await startHarness({ redisDb: REDIS_DB, logger: logs });
    h.config.publicUrl = h.url; // the harness listens on a port chosen at start
    zoho.addRedirectUri(`${h.url}${callbackPath}`);
    h.service.addTemplate('Standard');
  });
  afterAll(async () => {
    await h?.close();
    await zoho.stop();
  });

  /** Connect: the consent address and the browser binding cookie the answer set. */
  async function connect(clientSecret: string | undefined = zoho.clientSecret): Promise<{ authorizeUrl: URL; cookie: string }> {
    const res = await h.admin('/api/connections/record-crm', {
      method: 'PUT',
      json: { accounts_url: zoho.accountsUrl, client_id: zoho.clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.redirect_uri).toBe(`${h.url}${callbackPath}`);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^crm_sync_oauth=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/admin\/connections\/record-crm\/callback; Max-Age=600$/);
    return { authorizeUrl: new URL(body.authorize_url), cookie: setCookie.split(';')[0] };
  }

  /** Zoho's consent, approved at once: where Zoho sends the browser back. */
  async function consent(authorizeUrl: URL): Promise<URL> {
    zoho.autoApprove = true;
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!);
  }

  const callback = (url: URL, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

  it('connects: consent at Zoho, the code exchanged once, the connection saved; state reuse and forgery refused', async () => {
    const { authorizeUrl, cookie } = await connect();
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${zoho.accountsUrl}/oauth/v2/auth`);
    const params = Object.fromEntries(authorizeUrl.searchParams);
    expect(params).toEqual({
      scope: ZOHO_SCOPES,
      client_id: zoho.clientId,
      response_type: 'code',
      access_type: 'offline',
      prompt: 'consent',
      redirect_uri: `${h.url}${callbackPath}`,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const back = await consent(authorizeUrl);
    expect(back.pathname).toBe(callbackPath);
    expect(back.searchParams.get('accounts-server')).toBe(zoho.accountsUrl);
    expect(zoho.grantedScopes).toEqual(ZOHO_SCOPES.split(','));

    // Without this browser's cookie, with another one, or with a forged state: refused, and the state stays usable.
    expect((await callback(back)).status).toBe(400);
    expect((await callback(back, 'crm_sync_oauth=' + 'x'.repeat(43))).status).toBe(400);
    const forged = new URL(back);
    forged.searchParams.set('state', 'A'.repeat(43));
    const forgedAnswer = await callback(forged, cookie);
    expect(forgedAnswer.status).toBe(400);
    expect(await forgedAnswer.text()).toContain('unknown, already used, expired, or was started in another browser');

    const done = await callback(back, cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin/#connections');
    expect(done.headers.get('set-cookie')).toMatch(/^crm_sync_oauth=; .*Max-Age=0/);
    expect((await callback(back, cookie)).status).toBe(400); // used once

    const item = await connection(h, 'record_crm');
    expect(item).toMatchObject({ source: 'console', status: 'connected', read_only: false, updated_by: 'admin' });
    expect(item.settings).toEqual({
      accounts_url: zoho.accountsUrl,
      api_domain: zoho.apiDomain,
      client_id: zoho.clientId,
      client_secret_last4: zoho.clientSecret.length >= 12 ? zoho.clientSecret.slice(-4) : null,
      data_centre: null,
    });
    const audit = await h.database.query<Json[]>(`SELECT detail FROM sync_log WHERE kind = 'admin_write' ORDER BY id DESC LIMIT 1`);
    expect(audit[0].detail).toBe(`Zoho CRM connected (API domain ${zoho.apiDomain}) by admin`);
    // Who is connected, read after the consent and again on every check.
    expect(item.detail).toBe('Acme Roofing (org 12345), connected as admin@acme.example');
    // The consenting user's organization renamed in Zoho: the next check says so.
    const acme = zoho.account;
    Object.assign(acme, { org: { id: '12345', name: 'Acme Roofing Ltd' }, email: 'owner@acme.example' });
    try {
      const tested = await h.admin('/api/connections/record-crm/test', { method: 'POST' });
      expect(await tested.json()).toEqual({ ok: true, code: null, detail: 'Acme Roofing Ltd (org 12345), connected as owner@acme.example' });
    } finally {
      Object.assign(acme, { org: { id: '12345', name: 'Acme Roofing' }, email: 'admin@acme.example' });
    }
  });

  it('refuses to save a consent given by a Zoho user of no CRM organization, and gives its token back', async () => {
    const acme = zoho.account;
    const before = await connection(h, 'record_crm');
    zoho.account = { userId: '4150868000000999001', email: 'someone@gmail.example', fullName: 'Someone', org: null };
    try {
      const { authorizeUrl, cookie } = await connect(undefined);
      const answer = await callback(await consent(authorizeUrl), cookie);
      expect(answer.status).toBe(502);
      expect(await answer.text()).toContain('belongs to no Zoho CRM organization');
      expect(zoho.scopesOf(zoho.revokedTokens.at(-1)!)).toBeDefined();
    } finally {
      zoho.account = acme;
    }
    expect((await connection(h, 'record_crm')).updated_at).toBe(before.updated_at);
  });

  it('pushes a record export-prompt attachment with the token the connection obtained', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const recordId = zoho.addRecord('Deals');
    await mapRecord(h, project.id, recordId);
    const prompt = recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: true });
    const res = await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, prompt, { secret: RECORD_PROMPT_SECRET });
    expect(res.status).toBe(200);
    await waitFor(
      async () =>
        (await h.database.query<Json[]>(`SELECT status FROM sync_log WHERE kind = 'attach_pdf' AND target = $1`, [`Deals/${recordId}`]))[0]?.status ===
        'succeeded',
    );
    expect(zoho.attachmentsOf('Deals', recordId)).toHaveLength(1);
    const refreshedWith = zoho.tokenRequests.map((r) => new URLSearchParams(r.body.toString()).get('refresh_token')).filter(Boolean) as string[];
    expect(refreshedWith.length).toBeGreaterThan(0);
    expect(refreshedWith.every((token) => zoho.scopesOf(token)?.join(',') === ZOHO_SCOPES)).toBe(true);
  });

  it('refuses a consent Zoho declined, and a state past its lifetime', async () => {
    const declined = await connect();
    const state = declined.authorizeUrl.searchParams.get('state')!;
    const answer = await callback(new URL(`${h.url}${callbackPath}?error=access_denied&state=${state}`), declined.cookie);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('Zoho did not grant access (access_denied)');

    h.config.connections.stateTtlSeconds = 0;
    try {
      const late = await connect(undefined); // the saved client's secret is reused
      const back = await consent(late.authorizeUrl);
      expect((await callback(back, late.cookie)).status).toBe(400);
    } finally {
      h.config.connections.stateTtlSeconds = 600;
    }
    expect((await connection(h, 'record_crm')).status).toBe('connected');
  });

  it('disconnects: the refresh token is revoked at Zoho, and no Zoho secret was ever in the database, an answer or a log', async () => {
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--data-only', h.databaseUrl], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const listing = await (await h.admin('/api/connections')).text();
    const removed = await h.admin('/api/connections/record-crm', { method: 'DELETE' });
    expect(await removed.json()).toEqual({ removed: true, revoked: true, detail: 'Zoho CRM connection removed; Zoho revoked the refresh token' });
    expect(zoho.revokedTokens).toHaveLength(2); // the refused consent's, then this one
    const refreshToken = zoho.revokedTokens[1];
    expect(zoho.scopesOf(refreshToken)?.join(',')).toBe(ZOHO_SCOPES);
    expect((await connection(h, 'record_crm')).status).toBe('not_configured');
    for (const secret of [zoho.clientSecret, refreshToken]) {
      expect(dump).not.toContain(secret);
      expect(listing).not.toContain(secret);
      for (const line of logs.lines) expect(line).not.toContain(secret);
    }
  });
});

describe("Zoho domains are Zoho's, and sealed secrets are bound to their settings", () => {
  const zoho = new ZohoSim();
  const logs = new CapturingLogger();
  let h: Harness;
  const callbackPath = '/admin/connections/record-crm/callback';
  const box = new SecretBox(parseConnectionsKey(TEST_CONNECTIONS_KEY)!);

  beforeAll(async () => {
    await zoho.start();
    // Zoho's hosts only, and the accounts server the environment names (no RECORD_CRM_API_DOMAIN: no environment connection).
    h = await startHarness({
      redisDb: REDIS_DB,
      logger: logs,
      env: { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false', RECORD_CRM_ACCOUNTS_URL: zoho.accountsUrl },
      // The rows read again every 200 ms rather than 2 s: the tests below wait for a change made in SQL to be read.
      tune: (c) => (c.connections.refreshMs = 200),
    });
    h.config.publicUrl = h.url;
    zoho.addRedirectUri(`${h.url}${callbackPath}`);
  });
  afterAll(async () => {
    await h?.close();
    await zoho.stop();
  });

  const put = (json: Record<string, string>) => h.admin('/api/connections/record-crm', { method: 'PUT', json });

  async function connectWith(clientSecret: string = zoho.clientSecret): Promise<Response> {
    const res = await put({ accounts_url: zoho.accountsUrl, client_id: zoho.clientId, client_secret: clientSecret });
    expect(res.status).toBe(200);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    const { authorize_url } = (await res.json()) as Json;
    zoho.autoApprove = true;
    const consent = await fetch(authorize_url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    return fetch(consent.headers.get('location')!, { redirect: 'manual', headers: { cookie } });
  }

  it("refuses an accounts_url that is not one of Zoho's data centres over https, naming the field; the environment's is accepted", async () => {
    for (const accountsUrl of ['https://evil.example', 'https://accounts.zoho.com.evil.example', 'http://accounts.zoho.eu', 'https://accounts.zoho.eu/x']) {
      const res = await put({ accounts_url: accountsUrl, client_id: zoho.clientId, client_secret: zoho.clientSecret });
      expect(res.status).toBe(422);
      const body = (await res.json()) as Json;
      expect(body.message).toMatch(/^accounts_url must be one of Zoho's data centres over https/);
      expect(JSON.stringify(body)).not.toContain(zoho.clientSecret);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const zohoEu = await put({ accounts_url: 'https://accounts.zoho.eu', client_id: zoho.clientId, client_secret: zoho.clientSecret });
    expect(zohoEu.status).toBe(200);
    expect(((await zohoEu.json()) as Json).authorize_url).toMatch(/^https:\/\/accounts\.zoho\.eu\/oauth\/v2\/auth\?/);
    expect((await put({ accounts_url: zoho.accountsUrl, client_id: zoho.clientId, client_secret: zoho.clientSecret })).status).toBe(200);
  });

  it("refuses a code exchange whose answer names an API domain that is not Zoho's, and saves nothing", async () => {
    zoho.answeredApiDomain = 'https://www.zohoapis.eu.evil.example';
    try {
      const back = await connectWith();
      expect(back.status).toBe(502);
      const page = await back.text();
      expect(page).toContain('the token answer named an API domain that is not Zoho');
      expect(page).toContain('https://www.zohoapis.eu.evil.example');
      expect(page).not.toContain(zoho.clientSecret);
    } finally {
      zoho.answeredApiDomain = null;
    }
    // The simulator's own API domain (127.0.0.1) is not Zoho's either, while custom domains are not allowed.
    const own = await connectWith();
    expect(own.status).toBe(502);
    expect(await own.text()).toContain(`not ${zoho.apiDomain}`);
    expect((await connection(h, 'record_crm')).status).toBe('not_configured');
  });

  it('allows custom domains when RECORD_CRM_ALLOW_CUSTOM_DOMAINS=true', async () => {
    h.config.zohoDomains.allowCustom = true; // the same object the daemon reads on each request
    expect((await put({ accounts_url: 'http://127.0.0.1:9', client_id: zoho.clientId, client_secret: zoho.clientSecret })).status).toBe(200);
    const done = await connectWith();
    expect(done.status).toBe(303);
    const item = await connection(h, 'record_crm');
    expect(item).toMatchObject({ status: 'connected', settings: { accounts_url: zoho.accountsUrl, api_domain: zoho.apiDomain } });
  });

  it('asks for the client secret again when accounts_url changes', async () => {
    const moved = await put({ accounts_url: 'https://accounts.zoho.eu', client_id: zoho.clientId });
    expect(moved.status).toBe(422);
    expect(((await moved.json()) as Json).message).toBe('client_secret is required when accounts_url changes');
    expect(moved.headers.get('set-cookie')).toBeNull();
    // Same accounts server: the saved secret is reused.
    const same = await put({ accounts_url: `${zoho.accountsUrl}/`, client_id: zoho.clientId });
    expect(same.status).toBe(200);
  });

  const rowOf = async (name: string) =>
    (await h.database.query<Json[]>(`SELECT settings, sealed_secrets, legacy_seal FROM connection WHERE name = $1`, [name]))[0];
  const touch = (name: string) => h.database.query(`UPDATE connection SET revision = revision + 1 WHERE name = $1`, [name]);

  it('a sealed secret whose URL was changed in the database, or copied into another row, does not open', async () => {
    const saved = await rowOf('record_crm');
    expect(saved.sealed_secrets).toMatch(/^v2\./);
    await h.database.query(`UPDATE connection SET settings = jsonb_set(settings, '{accounts_url}', '"https://accounts.zoho.eu"') WHERE name = 'record_crm'`);
    await touch('record_crm');
    const moved = await waitFor(async () => {
      const item = await connection(h, 'record_crm');
      return item.status === 'degraded' ? item : null;
    });
    expect(moved).toMatchObject({ settings: null, detail: expect.stringMatching(/the saved secrets cannot be read/) });

    // Back to its own URL, it opens again.
    await h.database.query(`UPDATE connection SET settings = $1 WHERE name = 'record_crm'`, [JSON.stringify(saved.settings)]);
    await touch('record_crm');
    await waitFor(async () => (await connection(h, 'record_crm')).status === 'connected');

    // Copied, with its settings, into the appointment CRM's row.
    await h.database.query(`INSERT INTO connection (name, settings, sealed_secrets, updated_by) VALUES ('appointment_crm', $1, $2, 'sql')`, [
      JSON.stringify({ base_url: zoho.accountsUrl, ...saved.settings }),
      saved.sealed_secrets,
    ]);
    const copied = await waitFor(async () => {
      const item = await connection(h, 'appointment_crm');
      return item.status === 'degraded' ? item : null;
    });
    expect(copied.detail).toMatch(/the saved secrets cannot be read/);
    await h.database.query(`DELETE FROM connection WHERE name = 'appointment_crm'`);
  });

  it('re-seals a seal of the old format (marked by the migration) on first read, and it still works', async () => {
    const saved = await rowOf('record_crm');
    const secrets = box.open<Record<string, unknown>>(saved.sealed_secrets, connectionBindingOf(saved.settings));
    const oldSeal = `v1.${box.seal(secrets, 'record_crm').split('.').slice(1).join('.')}`;
    // A v1 seal on a row the migration did not mark (copied in afterwards) is refused.
    await h.database.query(`UPDATE connection SET sealed_secrets = $1 WHERE name = 'record_crm'`, [oldSeal]);
    await touch('record_crm');
    await waitFor(async () => (await connection(h, 'record_crm')).status === 'degraded');
    expect((await rowOf('record_crm')).sealed_secrets).toBe(oldSeal);

    // The upgrade: the migration marks the v1 seals; the daemon opens each once and seals it again, bound.
    await h.database.query(`ALTER TABLE connection DROP COLUMN legacy_seal`);
    await new LegacySeals1763700013000().up({ query: (sql: string) => h.database.query(sql) } as unknown as QueryRunner);
    expect((await rowOf('record_crm')).legacy_seal).toBe(true);
    await touch('record_crm');
    await waitFor(async () => (await connection(h, 'record_crm')).status === 'connected');
    const resealed = await rowOf('record_crm');
    expect(resealed).toMatchObject({ legacy_seal: false, sealed_secrets: expect.stringMatching(/^v2\./) });
    expect(box.open(resealed.sealed_secrets, connectionBindingOf(resealed.settings))).toEqual(secrets);
    const tested = (await (await h.admin('/api/connections/record-crm/test', { method: 'POST' })).json()) as Json;
    expect(tested).toMatchObject({ ok: true });
    for (const line of logs.lines) expect(line).not.toContain(zoho.clientSecret);
  });
});

function connectionBindingOf(settings: Record<string, string>): string {
  return connectionBinding('record_crm', settings);
}
