import type { SyncLogEntry } from '../../src/sync-log/sync-log.row.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { ADMIN_TOKEN, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntries } from '../support/tables.js';

// Redis db 15 is this file's (see `grep -n redisDb test/*.ts`; 14 is the demo's).
const REDIS_DB = 15;

interface CallView {
  run: number;
  seq: number;
  system: string;
  method: string;
  path: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
  at: string;
}

/** Every outbound call of an action is recorded with it: a template path, the status, the time, the reason. */
describe('call traces', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, appointmentCrm: true, recordCrm: true });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;

  async function scenario() {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `9007199254740993${seq++}`;
    crm().addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    return { project, drawing, appointmentId };
  }

  async function callsOf(entry: SyncLogEntry): Promise<CallView[]> {
    const res = await h.admin(`/api/sync-logs/${entry.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { calls: CallView[] };
    return body.calls;
  }

  it('an action that succeeds after two 503s shows three calls to that path, with durations', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 503, times: 2 });
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    const sale = entries.find((e) => e.kind === 'push_line_items')!;
    expect(sale.status).toBe('succeeded');

    const calls = await callsOf(sale);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.map((c) => c.seq)).toEqual(calls.map((_, i) => i + 1));
    expect(calls.some((c) => c.system === 'service' && c.method === 'GET' && c.path === '/drawings/:id/line_items' && c.status === 200)).toBe(true);
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.run, c.system, c.path, c.status])).toEqual([
      [1, 'appointment_crm', '/appointments/:id/sale', 503],
      [1, 'appointment_crm', '/appointments/:id/sale', 503],
      [1, 'appointment_crm', '/appointments/:id/sale', 200],
    ]);
    for (const c of calls) {
      expect(typeof c.duration_ms).toBe('number');
      expect(c.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(c.at))).toBe(false);
    }
    expect(puts[0].error).toMatch(/^unavailable/);
    expect(puts[2].error).toBeNull();
  });

  it('a failed upload shows its status and error; a retried one shows each try with its download', async () => {
    const failing = await scenario();
    crm().injectFault({ method: 'POST', path: `/appointments/${failing.appointmentId}/files`, status: 400, body: { error: 'file type refused' }, times: 1 });
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(failing.drawing.id)));
    const [failed] = await settled(h, failing.project.id, ['push_drawings']);
    expect(failed.status).toBe('failed');
    const failedCalls = await callsOf(failed);
    const download = failedCalls.find((c) => c.system === 'download')!;
    expect(download).toMatchObject({ method: 'GET', status: 200, error: null });
    expect(download.path).toBe(`(pdf download) ${new URL(h.service.url).host}`);
    expect(failedCalls.at(-1)).toMatchObject({ system: 'appointment_crm', method: 'POST', path: '/appointments/:id/files', status: 400 });
    expect(failedCalls.at(-1)!.error).toContain('file type refused');

    const retried = await scenario();
    crm().injectFault({ method: 'POST', path: `/appointments/${retried.appointmentId}/files`, status: 503, times: 2 });
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(retried.drawing.id)));
    const [entry] = await settled(h, retried.project.id, ['push_drawings']);
    expect(entry).toMatchObject({ status: 'succeeded', attempts: 1 });
    // A stream is sent once, so the client downloads again before each try of the upload.
    const tries = (await callsOf(entry)).filter((c) => c.system === 'download' || (c.method === 'POST' && c.path === '/appointments/:id/files'));
    expect(tries.map((c) => [c.run, c.system, c.status])).toEqual([
      [1, 'download', 200],
      [1, 'appointment_crm', 503],
      [1, 'download', 200],
      [1, 'appointment_crm', 503],
      [1, 'download', 200],
      [1, 'appointment_crm', 201],
    ]);
  });

  it('Zoho calls show the module and id as placeholders, without the token', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const recordId = h.zoho!.addRecord('Deals');
    await mapRecord(h, project.id, recordId);
    const prompt = recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: true });
    const res = await new WebhookSender().deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, prompt, { secret: RECORD_PROMPT_SECRET });
    expect(res.status).toBe(200);
    const entry = await waitFor(async () => {
      const [e] = await syncLogEntries(h, { target: `Deals/${recordId}` });
      return e && ['succeeded', 'failed'].includes(e.status) ? e : null;
    }, 15_000);
    expect(entry.status).toBe('succeeded');
    const calls = await callsOf(entry);
    const paths = calls.map((c) => `${c.system} ${c.method} ${c.path}`);
    expect(paths).toEqual(
      expect.arrayContaining(['service POST /export_proposal_pdf', 'zoho GET /crm/v8/:module/:id/Attachments', 'zoho POST /crm/v8/:module/:id/Attachments']),
    );
  });

  it('numbers the runs of an action retried by the queue', async () => {
    const { project, drawing, appointmentId } = await scenario();
    // More 503s than the client's own tries: the first run fails, the queue runs the action again.
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 503, times: h.config.http.retry.attempts });
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    const sale = entries.find((e) => e.kind === 'push_line_items')!;
    expect(sale).toMatchObject({ status: 'succeeded', attempts: 2 });
    const puts = (await callsOf(sale)).filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.run, c.status])).toEqual([...Array.from({ length: h.config.http.retry.attempts }, () => [1, 503]), [2, 200]]);
  });

  it('stores no token, key, secret, id or query string', async () => {
    const rows = await h.database.query<{ text: string }[]>(`SELECT string_agg(row_to_json(c)::text, E'\\n') AS text FROM sync_log_call c`);
    const text = rows[0].text;
    expect(text.length).toBeGreaterThan(0);
    for (const secret of [h.service.token, crm().apiKey, 'zoho-secret', 'zoho-refresh', 'zoho-client', ADMIN_TOKEN, 'Bearer', 'oauthtoken']) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/1000\.[0-9a-f]{16,}/); // a Zoho access token
    expect(text).not.toContain('?');
    const paths = await h.database.query<{ path: string }[]>(`SELECT DISTINCT path FROM sync_log_call`);
    for (const { path } of paths) expect(path).not.toMatch(/\d{6,}/);
  });
});
