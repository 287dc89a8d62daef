// Redis db 1, shared with health.e2e-spec.ts (see `grep -n redisDb test/*.ts`: every index 0-15 is taken). Sharing is
// safe: each harness has a queue prefix of its own, and neither file flushes the db (webhooks-restart flushes 4).
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';
import { syncLogEntries } from '../support/tables.js';

const REDIS_DB = 1;
const VIEWER_TOKEN = 'viewer-token-0123456789';
const sender = new WebhookSender();
const FINISHED = ['succeeded', 'failed', 'skipped'];

interface Delivery {
  id: string;
  endpoint: string;
  event: string | null;
  status: string;
  duplicates: number;
  replays: number;
  project_id: string | null;
}

/** The operations API: overview, project view, deliveries (list, one, replay) and the bulk retry. */
describe('operations API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, recordCrm: true, env: { ADMIN_TOKENS: `watcher:viewer:${VIEWER_TOKEN}` } });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());

  const json = async <T = Record<string, unknown>>(path: string, init?: RequestInit): Promise<T> => {
    const res = await h.admin(path, init);
    expect(`${res.status} ${path}`).toBe(`${init?.method === 'POST' ? (path.includes('replay') ? 202 : 200) : 200} ${path}`);
    return (await res.json()) as T;
  };
  const status = async (path: string, init?: RequestInit) => (await h.admin(path, init)).status;
  const sql = <T = Array<Record<string, unknown>>>(text: string, params: unknown[] = []) => h.database.query<T>(text, params);

  async function mappedProject() {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const recordId = h.zoho!.addRecord('Deals');
    await sql(`INSERT INTO mapping (crm, record_crm_module, record_crm_record_id, project_id, status) VALUES ('record', 'Deals', $1, $2, 'associated')`, [
      recordId,
      project.id,
    ]);
    return { project, drawing, recordId, target: `Deals/${recordId}` };
  }

  async function deliver(path: string, body: object, secret: string): Promise<string> {
    const res = await sender.deliverOnce(`${h.url}${path}`, body, { secret });
    expect(res.status).toBe(200);
    return (JSON.parse(res.body) as { status: string }).status;
  }

  const entriesOf = (target: string) => syncLogEntries(h, { target });
  const settled = (target: string, count: number) =>
    waitFor(
      async () => {
        const entries = await entriesOf(target);
        return entries.length >= count && entries.every((e) => FINISHED.includes(e.status)) ? entries : null;
      },
      15_000,
      `${count} finished entries for ${target}`,
    );

  /** Inserts a stored delivery as if it had arrived (raw bytes kept), in the given status. */
  async function storedDelivery(endpoint: string, raw: string, state: string, event: string | null = null): Promise<string> {
    const [row] = await sql<Array<{ id: string }>>(
      `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, enqueued_at, error)
       VALUES ($1, $2, $3, sha256($3), $4, now(), $5) RETURNING id::text AS id`,
      [endpoint, event, Buffer.from(raw), state, state === 'failed' ? 'record_crm_record_id must be a string of digits' : null],
    );
    return row.id;
  }

  describe('overview', () => {
    it('answers 401 without a token, 400 on an unknown window', async () => {
      expect((await fetch(`${h.url}/api/overview`)).status).toBe(401);
      expect(await status('/api/overview?window=1h')).toBe(400);
    });

    it('counts seeded rows by status and kind, per hour, oldest queued, waiting deliveries and connections', async () => {
      const hoursAgo = (n: number) => new Date(Date.now() - n * 3600_000);
      const seed = async (kind: string, state: string, at: Date) =>
        sql(`INSERT INTO sync_log (kind, trigger, status, created_at, updated_at, enqueued_at) VALUES ($1, 'admin', $2, $3, $3, now())`, [kind, state, at]);
      await seed('push_drawings', 'succeeded', hoursAgo(1));
      await seed('push_drawings', 'succeeded', hoursAgo(1));
      await seed('attach_pdf', 'succeeded', hoursAgo(3));
      await seed('attach_pdf', 'failed', hoursAgo(3));
      await seed('add_note', 'skipped', hoursAgo(30)); // outside 24h, inside 7d
      await seed('associate', 'queued', new Date(Date.now() - 600_000));
      await seed('associate', 'succeeded', hoursAgo(24 * 8)); // outside both windows
      const waiting = await storedDelivery('events', '{"event":"project.updated","data":{}}', 'received');
      // The console's Test of Zoho: a token, /org and /users (three Zoho calls at least).
      expect(await status('/api/connections/record_crm/test', { method: 'POST' })).toBe(200);

      const day = await json<{
        by_status: Record<string, number>;
        by_kind: Record<string, number>;
        success_rate: number | null;
        per_hour: Array<{ hour: string; succeeded: number; failed: number; skipped: number }>;
        oldest_queued_age_seconds: number;
        deliveries_waiting: number;
        connections: Record<string, { status: string; endpoints?: Record<string, boolean> }>;
        zoho_calls_today: { day: string; calls: number; allowance: number };
      }>('/api/overview');
      expect(day.by_status).toEqual({ queued: 1, running: 0, succeeded: 3, failed: 1, skipped: 0, waiting: 0 });
      expect(day.by_kind).toEqual({ push_drawings: 2, attach_pdf: 2, associate: 1 });
      expect(day.success_rate).toBe(0.75);
      expect(day.per_hour).toHaveLength(25);
      const hourOf = (d: Date) => `${d.toISOString().slice(0, 13)}:00:00.000Z`;
      expect(day.per_hour.find((p) => p.hour === hourOf(hoursAgo(1)))).toMatchObject({ succeeded: 2, failed: 0 });
      expect(day.per_hour.find((p) => p.hour === hourOf(hoursAgo(3)))).toMatchObject({ succeeded: 1, failed: 1 });
      expect(day.per_hour.reduce((n, p) => n + p.succeeded + p.failed + p.skipped, 0)).toBe(4);
      expect(day.oldest_queued_age_seconds).toBeGreaterThanOrEqual(599);
      expect(day.oldest_queued_age_seconds).toBeLessThan(660);
      expect(day.deliveries_waiting).toBe(1);
      expect(day.connections.service.status).toBe('connected');
      expect(day.connections.appointment_crm.status).toBe('not_configured');
      expect(day.connections.record_crm.status).toBe('connected');
      expect(day.connections.webhooks.endpoints).toEqual({ events: true, appointment_prompt: true, record_prompt: true });
      // Zoho calls today: what the daemon asked Zoho (its token, and the organization its readiness read), of the allowance.
      const zohoRequests = h.zoho!.api.requests.length + h.zoho!.accounts.requests.length;
      expect(day.zoho_calls_today).toMatchObject({ day: new Date().toISOString().slice(0, 10), allowance: 50_000 });
      expect(day.zoho_calls_today.calls).toBeGreaterThanOrEqual(3);
      expect(day.zoho_calls_today.calls).toBeLessThanOrEqual(zohoRequests);

      const week = await json<{ by_status: Record<string, number>; per_hour: unknown[]; success_rate: number }>('/api/overview?window=7d');
      expect(week.by_status.skipped).toBe(1);
      expect(week.by_status.succeeded).toBe(3);
      expect(week.per_hour).toHaveLength(7 * 24 + 1);

      await sql(`DELETE FROM sync_log WHERE trigger = 'admin' AND kind <> 'admin_write'`);
      await sql(`DELETE FROM webhook_inbox WHERE id = $1`, [waiting]);
      const empty = await json<{ success_rate: number | null; oldest_queued_age_seconds: number | null }>('/api/overview');
      expect(empty.success_rate).toBeNull();
      expect(empty.oldest_queued_age_seconds).toBeNull();
    });
  });

  describe('project view', () => {
    it('lists mappings, deliveries and actions of an id beyond 2^53, exactly', async () => {
      const m = await mappedProject();
      expect(BigInt(m.project.id)).toBeGreaterThan(2n ** 53n);
      const body = recordPrompt({
        drawing_id: m.drawing.id,
        record_crm_module: 'Deals',
        record_crm_record_id: m.recordId,
        yes_no: true,
        project_id: m.project.id,
      });
      expect(await deliver('/webhooks/record-crm/export-prompt', body, RECORD_PROMPT_SECRET)).toBe('accepted');
      const [entry] = await settled(m.target, 1);

      const view = await json<{
        project_id: string;
        mappings: Array<{ project_id: string; record_crm_record_id: string }>;
        deliveries: Delivery[];
        actions: Array<{ id: string; kind: string; project_id: string; parent_id: string | null }>;
        chains: Array<{ root_id: string; ids: string[] }>;
      }>(`/api/projects/${m.project.id}`);
      expect(view.project_id).toBe(m.project.id);
      expect(view.mappings).toEqual([expect.objectContaining({ project_id: m.project.id, record_crm_record_id: m.recordId })]);
      expect(view.deliveries).toEqual([
        expect.objectContaining({ id: String(entry.inboxId), endpoint: 'record-prompt', status: 'routed', project_id: m.project.id }),
      ]);
      expect(view.actions).toEqual([expect.objectContaining({ id: entry.id, kind: 'attach_pdf', project_id: m.project.id, parent_id: null })]);
      expect(view.chains).toEqual([{ root_id: entry.id, ids: [entry.id] }]);
    });

    it('finds deliveries through their actions, and groups chains by root with children in order', async () => {
      const projectId = '36029621652695017999';
      const inbox = await storedDelivery('events', '{"event":"project.updated","data":{}}', 'routed');
      const insert = async (kind: string, parent: string | null) => {
        const [row] = await sql<Array<{ id: string }>>(
          `INSERT INTO sync_log (kind, trigger, status, project_id, parent_id, inbox_id) VALUES ($1, 'webhook', 'succeeded', $2, $3, $4) RETURNING id::text AS id`,
          [kind, projectId, parent, parent ? null : inbox],
        );
        return row.id;
      };
      const pdf = await insert('push_proposal_pdf', null);
      const items = await insert('push_line_items', pdf);
      const other = await insert('push_drawings', null);
      const sold = await insert('set_status', items);
      const view = await json<{ deliveries: Delivery[]; actions: Array<{ id: string; parent_id: string | null }>; chains: unknown[] }>(
        `/api/projects/${projectId}`,
      );
      expect(view.deliveries.map((d) => d.id)).toEqual([inbox]);
      expect(view.actions.map((a) => [a.id, a.parent_id])).toEqual([
        [sold, items],
        [other, null],
        [items, pdf],
        [pdf, null],
      ]);
      expect(view.chains).toEqual([
        { root_id: other, ids: [other] },
        { root_id: pdf, ids: [pdf, items, sold] },
      ]);
      expect(await status('/api/projects/not-a-number')).toBe(400);
      expect(await status('/api/projects/1234')).toBe(404);
    });
  });

  describe('deliveries', () => {
    it('lists newest first with filters (duplicate: sent again), pages, and refuses bad filters', async () => {
      const m = await mappedProject();
      const body = events.drawingUpdated(h.service.drawingView(m.drawing.id));
      expect(await deliver('/webhooks/events', body, EVENTS_SECRET)).toBe('accepted');
      expect(await deliver('/webhooks/events', body, EVENTS_SECRET)).toBe('duplicate');
      const [row] = await waitFor(() =>
        sql<Array<{ id: string; status: string }>>(`SELECT id::text AS id, status FROM webhook_inbox WHERE project_id = $1`, [m.project.id]).then((r) =>
          r.length && r[0].status === 'routed' ? r : null,
        ),
      );

      const byProject = await json<{ items: Delivery[] }>(`/api/deliveries?project_id=${m.project.id}`);
      expect(byProject.items).toEqual([
        expect.objectContaining({ id: row.id, event: 'drawing.updated', status: 'routed', duplicates: 1, project_id: m.project.id }),
      ]);
      const dups = await json<{ items: Delivery[] }>('/api/deliveries?status=duplicate');
      expect(dups.items.map((d) => d.id)).toEqual([row.id]);
      expect((await json<{ items: Delivery[] }>(`/api/deliveries?endpoint=events&event=drawing.updated&status=routed`)).items.map((d) => d.id)).toContain(
        row.id,
      );
      expect((await json<{ items: Delivery[] }>(`/api/deliveries?since=${new Date(Date.now() + 60_000).toISOString()}`)).items).toEqual([]);

      const all = await json<{ items: Delivery[] }>('/api/deliveries?limit=500');
      const ids = all.items.map((d) => BigInt(d.id));
      expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);
      const first = await json<{ items: Delivery[]; next_cursor: string }>('/api/deliveries?limit=1');
      expect(first.items[0].id).toBe(all.items[0].id);
      const second = await json<{ items: Delivery[] }>(`/api/deliveries?limit=1&cursor=${first.next_cursor}`);
      expect(second.items[0].id).toBe(all.items[1].id);

      for (const bad of ['status=duplicated', 'endpoint=nope', 'since=yesterday', 'project_id=abc', 'cursor=x', 'limit=0']) {
        expect(`${bad} ${await status(`/api/deliveries?${bad}`)}`).toBe(`${bad} 400`);
      }
      expect(await status('/api/deliveries/99999999')).toBe(404);
    });

    it('shows one delivery with its raw body (ids exact), the body parsed exactly, and its actions', async () => {
      const raw = '{"event":"something.new","data":{"project_id":36029621652695017123, "n": 1.50}}';
      const id = await storedDelivery('events', raw, 'ignored', 'something.new');
      const one = await json<{ id: string; body: string; json: { data: { project_id: string; n: number } }; actions: unknown[] }>(`/api/deliveries/${id}`);
      expect(one.body).toBe(raw);
      expect(one.json.data.project_id).toBe('36029621652695017123');
      expect(one.actions).toEqual([]);

      const notJson = await storedDelivery('events', 'not json', 'failed');
      expect((await json<{ json: unknown; body: string }>(`/api/deliveries/${notJson}`)).json).toBeNull();
    });
  });

  describe('replay', () => {
    it('a routed export prompt: a new attach action and a second attachment; a payment: the same entry, no second note', async () => {
      const m = await mappedProject();
      const prompt = recordPrompt({ drawing_id: m.drawing.id, record_crm_module: 'Deals', record_crm_record_id: m.recordId, yes_no: true });
      expect(await deliver('/webhooks/record-crm/export-prompt', prompt, RECORD_PROMPT_SECRET)).toBe('accepted');
      const [first] = await settled(m.target, 1);
      expect(h.zoho!.attachmentsOf('Deals', m.recordId)).toHaveLength(1);

      const replayed = await json<{ sync_log_ids: string[]; replay: number }>(`/api/deliveries/${first.inboxId}/replay`, { method: 'POST' });
      expect(replayed.replay).toBe(1);
      expect(replayed.sync_log_ids).toHaveLength(1);
      expect(replayed.sync_log_ids[0]).not.toBe(first.id);
      const after = await settled(m.target, 2);
      expect(after.map((e) => [e.kind, e.status, String(e.inboxId)])).toEqual([
        ['attach_pdf', 'succeeded', String(first.inboxId)],
        ['attach_pdf', 'succeeded', String(first.inboxId)],
      ]);
      expect(after[1].dedupeKey).toContain(`inbox:${first.inboxId}:r1`);
      expect(h.zoho!.attachmentsOf('Deals', m.recordId)).toHaveLength(2);
      const detail = await json<{ replays: number; actions: Array<{ id: string }> }>(`/api/deliveries/${first.inboxId}`);
      expect(detail.replays).toBe(1);
      expect(detail.actions.map((a) => a.id)).toEqual(after.map((e) => e.id));

      const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
      const payment = h.service.addPayment(proposal.proposal_id, {
        paid_amount: 80,
        pay_channel: 'mark_as_paid',
        paid_date: '2025-11-20',
        payment_method: 'Cash',
      });
      expect(await deliver('/webhooks/events', events.paymentReceived(proposal.proposal_id, m.drawing.id, payment), EVENTS_SECRET)).toBe('accepted');
      const withNote = await settled(m.target, 3);
      const note = withNote.find((e) => e.kind === 'add_note')!;
      expect(h.zoho!.notesOf('Deals', m.recordId)).toHaveLength(1);
      const again = await json<{ sync_log_ids: string[] }>(`/api/deliveries/${note.inboxId}/replay`, { method: 'POST' });
      expect(again.sync_log_ids).toEqual([note.id]);
      await new Promise((r) => setTimeout(r, 300));
      expect(await entriesOf(m.target)).toHaveLength(3);
      expect(h.zoho!.notesOf('Deals', m.recordId)).toHaveLength(1);
    });

    it('a delivery stored failed for a shape the parser accepts today: routed and run', async () => {
      const m = await mappedProject();
      const raw = `{"drawing_id":${m.drawing.id},"record_crm_module":"Deals","record_crm_record_id":${m.recordId},"yes_no":true}`;
      const id = await storedDelivery('record-prompt', raw, 'failed');
      const replayed = await json<{ sync_log_ids: string[] }>(`/api/deliveries/${id}/replay`, { method: 'POST' });
      expect(replayed.sync_log_ids).toHaveLength(1);
      const [entry] = await settled(m.target, 1);
      expect(entry).toMatchObject({ id: replayed.sync_log_ids[0], kind: 'attach_pdf', status: 'succeeded', projectId: m.project.id });
      const [row] = await sql<Array<{ status: string; error: string | null; project_id: string }>>(
        `SELECT status, error, project_id FROM webhook_inbox WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({ status: 'routed', error: null, project_id: m.project.id });
      expect(h.zoho!.attachmentsOf('Deals', m.recordId)).toHaveLength(1);
    });

    it('refuses unknown ids (404), unknown events (409), bodies still bad (422), a viewer (403)', async () => {
      expect(await status('/api/deliveries/99999999/replay', { method: 'POST' })).toBe(404);
      const ignored = await storedDelivery('events', '{"event":"something.else","data":{}}', 'ignored', 'something.else');
      const res = await h.admin(`/api/deliveries/${ignored}/replay`, { method: 'POST' });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { message: string }).message).toContain('does not handle');
      const bad = await storedDelivery('record-prompt', '{"yes_no":"maybe"}', 'failed');
      expect(await status(`/api/deliveries/${bad}/replay`, { method: 'POST' })).toBe(422);
      const viewer = await fetch(`${h.url}/api/deliveries/${bad}/replay`, { method: 'POST', headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
      expect(viewer.status).toBe(403);
      expect((await fetch(`${h.url}/api/deliveries/${bad}`, { headers: { authorization: `Bearer ${VIEWER_TOKEN}` } })).status).toBe(200);
    });
  });

  describe('bulk retry', () => {
    it('counts, then retries every matching failed entry; refuses another status', async () => {
      const projectId = '36029621652695017888';
      const seed = async (kind: string, state: string) => {
        const [row] = await sql<Array<{ id: string }>>(
          `INSERT INTO sync_log (kind, trigger, status, crm, project_id, attempts, error, enqueued_at, finished_at)
           VALUES ($1, 'webhook', $2, 'appointment', $3, 2, 'boom', now(), now()) RETURNING id::text AS id`,
          [kind, state, projectId],
        );
        return row.id;
      };
      const failed = [await seed('set_status', 'failed'), await seed('set_status', 'failed'), await seed('add_note', 'failed')];
      const done = await seed('set_status', 'succeeded');

      expect(await json(`/api/sync-logs/count?project_id=${projectId}`)).toEqual({ matching: 3, would_retry: 3, cap: 10_000 });
      expect(await json(`/api/sync-logs/retry?project_id=${projectId}&kind=set_status&dry_run=true`, { method: 'POST' })).toEqual({
        matching: 2,
        would_retry: 2,
        cap: 10_000,
      });
      expect(await status(`/api/sync-logs/retry?status=succeeded`, { method: 'POST' })).toBe(400);
      expect(await status(`/api/sync-logs/retry?since=soon`, { method: 'POST' })).toBe(400);
      expect((await fetch(`${h.url}/api/sync-logs/retry`, { method: 'POST', headers: { authorization: `Bearer ${VIEWER_TOKEN}` } })).status).toBe(403);
      // Still failed: the dry run changed nothing.
      expect((await sql<unknown[]>(`SELECT 1 FROM sync_log WHERE id = ANY($1::bigint[]) AND status = 'failed'`, [failed])).length).toBe(3);

      const retried = await json<{ retried: number; ids: string[]; more: boolean }>(`/api/sync-logs/retry?project_id=${projectId}`, { method: 'POST' });
      expect(retried).toMatchObject({ retried: 3, ids: failed, more: false });
      const rows = await sql<Array<{ id: string; retry_base: number; status: string }>>(
        `SELECT id::text AS id, retry_base, status FROM sync_log WHERE project_id = $1 ORDER BY id`,
        [projectId],
      );
      expect(rows.filter((r) => failed.includes(r.id)).every((r) => r.retry_base === 2)).toBe(true);
      expect(rows.find((r) => r.id === done)!.status).toBe('succeeded');
      // The appointment CRM is not configured here: the relay hands the entries on and they fail again, with that reason.
      await waitFor(async () => {
        const again = await sql<Array<{ status: string; attempts: number }>>(`SELECT status, attempts FROM sync_log WHERE id = ANY($1::bigint[])`, [failed]);
        return again.every((r) => r.status === 'failed') ? again : null;
      });
      const audit = await sql<Array<{ detail: string }>>(`SELECT detail FROM sync_log WHERE kind = 'admin_write' AND project_id = $1`, [projectId]);
      expect(audit.map((a) => a.detail)).toEqual(['retried 3 failed sync log entries by admin']);
      expect(await json(`/api/sync-logs/count?project_id=${projectId}&since=${new Date(Date.now() + 60_000).toISOString()}`)).toMatchObject({ matching: 0 });
    });
  });
});
