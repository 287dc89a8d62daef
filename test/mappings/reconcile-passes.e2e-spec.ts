import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { DAEMON_ENTRY, startDaemon, type Daemon } from '../../bench/support.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { MaintenanceTasksService } from '../../src/queues/maintenance.service.js';
import { allActionsFinished, mappedAppointmentProject, reconciliation, settled } from '../support/appointment-crm.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ADMIN_TOKEN, baseEnv, removeQueueKeys, startHarness, uniqueDatabaseUrl, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';

type Json = Record<string, any>;

const REDIS_DB = 8;

describe('reconciliation passes', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, appointmentCrm: true, recordCrm: true, tune: (c) => (c.jobs.staleAfterMs = 0) });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());

  async function pass(json?: { scope: 'changes' | 'full' }): Promise<Json> {
    const entry = await reconciliation(h, json, 30_000);
    expect(entry.status).toBe('succeeded');
    await allActionsFinished(h);
    return entry;
  }

  const mappedProject = () => mappedAppointmentProject(h, `RP-${++seq}`);

  /** The service calls `work` made (the simulator's request log). */
  async function callsOf(work: () => Promise<unknown>): Promise<string[]> {
    const before = h.service.requests.length;
    await work();
    return h.service.requests.slice(before).map((r) => `${r.method} ${r.path}${r.query.size ? `?${r.query}` : ''}`);
  }

  it('the changes pass pushes an approval whose webhook was lost, and records its scope', async () => {
    const m = await mappedProject();
    h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    const entry = await pass();
    expect(entry).toMatchObject({ kind: 'reconcile', trigger: 'admin', payload: { scope: 'changes' } });
    expect(entry.detail).toMatch(/^changes pass: .* 1 approved proposal\(s\)/);
    await settled(h, m.project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    expect(h.appointmentCrm!.get(m.appointmentId)!.status).toBe('Sold');
    expect(h.appointmentCrm!.filesOf(m.appointmentId, 'proposal')).toHaveLength(1);
  });

  it('the changes pass notes a payment whose webhook was lost, on a proposal other activity had passed', async () => {
    const m = await mappedProject();
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    await pass();
    h.service.addProposal({ project_id: h.service.addProject().id, status: 'PENDING' });
    await pass();

    h.service.addPayment(proposal.proposal_id, { paid_amount: 310, pay_channel: 'mark_as_paid', paid_date: '2026-11-21', payment_method: 'ACH' });
    const entry = await pass();
    expect(entry.detail).toMatch(/1 proposal\(s\) changed since the last pass/);
    const notes = h.appointmentCrm!.get(m.appointmentId)!.notes;
    expect(notes).toHaveLength(1);
    expect(notes[0].text).toContain('310.00');
  });

  it('the changes pass notes a payment whose webhook was lost on the most recent proposal, which cannot move up', async () => {
    const m = await mappedProject();
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    await pass();
    h.service.addPayment(proposal.proposal_id, { paid_amount: 42, pay_channel: 'mark_as_paid', paid_date: '2026-11-22', payment_method: 'Cash' });
    const entry = await pass();
    expect(entry.detail).toMatch(/0 proposal\(s\) changed since the last pass/);
    expect(h.appointmentCrm!.get(m.appointmentId)!.notes.map((n) => n.text)).toEqual([expect.stringContaining('42.00')]);
  });

  it('a changes pass with nothing changed reads one page of R3, however many projects are mapped', async () => {
    const projects = Array.from({ length: 150 }, () => h.service.addProject());
    for (const p of projects) h.service.addProposal({ project_id: p.id, status: 'PENDING' });
    await h.database.query(
      `INSERT INTO mapping (crm, appointment_id, project_id, status) SELECT 'appointment', 'RP-MANY-' || p, p, 'associated' FROM unnest($1::text[]) AS p`,
      [projects.map((p) => p.id)],
    );
    try {
      const first = await callsOf(() => pass());
      expect(first.filter((c) => c.startsWith('GET /v1/proposals?')).length).toBeGreaterThanOrEqual(3);

      const calls = await callsOf(() => pass());
      const pages = calls.filter((c) => c.startsWith('GET /v1/proposals?'));
      expect(pages).toHaveLength(1);
      expect(pages[0]).toMatch(/[?&]page=1(&|$)/);
      expect(pages[0]).not.toContain('project_id');
      expect(calls.length).toBeLessThanOrEqual(3);
    } finally {
      // The full passes of the tests below walk every mapped project: these 150 would make each of them take seconds.
      await h.database.query(`DELETE FROM mapping WHERE appointment_id LIKE 'RP-MANY-%'`);
    }
  });

  it('a drawing version changed without a webhook is found by the full pass, not by the changes pass', async () => {
    const m = await mappedProject();
    await pass({ scope: 'full' });
    const first = h.appointmentCrm!.fileBytes(m.appointmentId, 'drawing');
    expect(first).toHaveLength(1);

    h.service.updateDrawing(m.drawing.id);
    await pass({ scope: 'changes' });
    expect(h.appointmentCrm!.fileBytes(m.appointmentId, 'drawing')[0].equals(first[0])).toBe(true);

    const full = await pass({ scope: 'full' });
    expect(full.payload).toMatchObject({ scope: 'full' });
    expect(full.payload.done).toBe(full.payload.total);
    expect(full.detail).toMatch(/^full pass: [\d,]+ of [\d,]+ mapped project\(s\) checked/);
    const second = h.appointmentCrm!.fileBytes(m.appointmentId, 'drawing');
    expect(second).toHaveLength(1);
    expect(second[0].toString()).toContain('v2');
  });

  it('a payment returned without a webhook gets one note from the full pass, and a second full pass adds none', async () => {
    const m = await mappedProject();
    const recordId = h.zoho!.addRecord('Deals');
    await mapRecord(h, m.project.id, recordId);
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    const payment = h.service.addPayment(proposal.proposal_id, {
      paid_amount: 480,
      pay_channel: 'mark_as_paid',
      paid_date: '2026-11-20',
      payment_method: 'Check',
    });
    await pass();
    expect(h.appointmentCrm!.get(m.appointmentId)!.notes).toHaveLength(1);

    // R5 changes, R3 does not: nothing moves in the activity order.
    payment.status = 'returned';
    await pass({ scope: 'full' });
    const notes = h.appointmentCrm!.get(m.appointmentId)!.notes;
    expect(notes).toHaveLength(2);
    expect(notes[1].text).toMatch(/^Payment returned\. The payment of 480\.00 for proposal \d+ was returned\./);

    const zohoNotes = h.zoho!.notesOf('Deals', recordId);
    expect(zohoNotes.map((n) => n.title)).toEqual(['Payment received: 480.00', 'Payment returned']);
    expect(zohoNotes[1].content).toMatch(/^The payment of 480\.00 for proposal \d+ was returned\.\nChannel: mark_as_paid/);

    await pass({ scope: 'full' });
    expect(h.appointmentCrm!.get(m.appointmentId)!.notes).toHaveLength(2);
    expect(h.zoho!.notesOf('Deals', recordId)).toHaveLength(2);

    payment.refunded_amount = 100;
    await pass({ scope: 'full' });
    const after = h.appointmentCrm!.get(m.appointmentId)!.notes;
    expect(after).toHaveLength(3);
    expect(after[2].text).toContain('Payment refunded: 100.00');
    expect(h.zoho!.notesOf('Deals', recordId).map((n) => n.title)).toEqual(['Payment received: 480.00', 'Payment returned', 'Payment refunded: 100.00']);
  });

  it('refuses an unknown scope', async () => {
    const res = await h.admin('/api/reconcile', { method: 'POST', json: { scope: 'everything' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).message).toEqual(expect.arrayContaining(['scope must be one of changes, full']));
  });
});

describe('the reconciliation schedule', () => {
  it('RECONCILE_INTERVAL_SECONDS=0 schedules neither pass', async () => {
    const h = await startHarness({ redisDb: REDIS_DB });
    try {
      const tasks = h.app.get(MaintenanceTasksService);
      expect([tasks.get('reconcile')!.everyMs, tasks.get('reconcile-full')!.everyMs]).toEqual([0, 0]);
    } finally {
      await h.close();
    }
  });

  it('RECONCILE_FULL_INTERVAL_SECONDS=0 schedules only the changes pass; a full pass unfinished is not doubled', async () => {
    const h = await startHarness({ redisDb: REDIS_DB, env: { RECONCILE_INTERVAL_SECONDS: '3600', RECONCILE_FULL_INTERVAL_SECONDS: '0' } });
    try {
      const tasks = h.app.get(MaintenanceTasksService);
      expect([tasks.get('reconcile')!.everyMs, tasks.get('reconcile-full')!.everyMs]).toEqual([3_600_000, 0]);

      const fullPasses = () => h.database.query<unknown[]>(`SELECT id FROM sync_log WHERE kind = 'reconcile' AND payload->>'scope' = 'full'`);
      const [{ id }]: Array<{ id: string }> = await h.database.query(
        `INSERT INTO sync_log (kind, trigger, status, payload, attempts, enqueued_at, started_at)
         VALUES ('reconcile', 'schedule', 'running', '{"scope":"full","after":"1","done":1,"total":2}', 1, now(), now()) RETURNING id::text`,
      );
      await tasks.get('reconcile-full')!.run('schedule', {});
      expect(await fullPasses()).toHaveLength(1);

      await h.database.query(`UPDATE sync_log SET status = 'succeeded', finished_at = now() WHERE id = $1`, [id]);
      await tasks.get('reconcile-full')!.run('schedule', {});
      expect(await fullPasses()).toHaveLength(2);
    } finally {
      await h.close();
    }
  });
});

/** The daemon as a real process, killed with SIGKILL mid-way through a full pass; the next one continues it. */
describe('a full pass killed mid-way', () => {
  const service = new ServiceSim();
  const databaseUrl = uniqueDatabaseUrl();
  const PROJECTS = 30;
  let env: Record<string, string>;
  let daemon: Daemon | undefined;
  let db: pg.Client;

  beforeAll(async () => {
    if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
    await service.start();
    // 20 calls a second: the pass paces itself to 10, two R3 pages per project, so about 0.2 s per project (the kill
    // after eight lands with 4 s of the pass to go).
    env = { ...baseEnv(service, databaseUrl, REDIS_DB), SERVICE_API_MAX_RPS: '20' };
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await db?.end();
    await service.stop();
    await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
    await dropDatabase(databaseUrl);
  });

  it('continues from the last project done and checks each project once more at most', async () => {
    daemon = await startDaemon(env);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const projects = Array.from({ length: PROJECTS }, () => service.addProject());
    for (const p of projects) service.addProposal({ project_id: p.id, status: 'PENDING' });
    await db.query(
      `INSERT INTO mapping (crm, appointment_id, project_id, status) SELECT 'appointment', 'KILL-' || p, p, 'associated' FROM unnest($1::text[]) AS p`,
      [projects.map((p) => p.id)],
    );

    const res = await fetch(`${daemon.url}/api/reconcile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'full' }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const payloadOf = async () => (await db.query(`SELECT payload, status, detail FROM sync_log WHERE id = $1`, [id])).rows[0];
    await waitFor(async () => ((await payloadOf()).payload.done ?? 0) >= 8, 30_000, 'eight projects done');
    await daemon.stop('SIGKILL');
    const atKill = (await payloadOf()).payload as { after: string; done: number; total: number };
    expect(atKill.done).toBeLessThan(PROJECTS);
    const readsBeforeRestart = readsPerProject();

    daemon = await startDaemon(env);
    const finished = await waitFor(
      async () => {
        const row = await payloadOf();
        return row.status === 'succeeded' ? row : null;
      },
      120_000,
      'the resumed pass to finish',
    );
    expect(finished.payload).toMatchObject({ scope: 'full', done: PROJECTS, total: PROJECTS });
    expect(finished.detail).toContain(`(resumed after project ${atKill.after};`);

    const reads = readsPerProject();
    for (const projectId of projects.map((p) => p.id)) {
      const count = reads.get(projectId) ?? 0;
      expect(count).toBeGreaterThanOrEqual(1);
      expect(count).toBeLessThanOrEqual(2);
      // Done before the kill: not read again.
      if (projectId <= atKill.after) expect(count).toBe(readsBeforeRestart.get(projectId));
    }
  }, 180_000);

  /** R3 first pages per project: one per time the pass checked it. */
  function readsPerProject(): Map<string, number> {
    const reads = new Map<string, number>();
    for (const r of service.requestsTo('GET', '/v1/proposals')) {
      const projectId = r.query.get('project_id');
      if (projectId && r.query.get('page') === '1') reads.set(projectId, (reads.get(projectId) ?? 0) + 1);
    }
    return reads;
  }
});
