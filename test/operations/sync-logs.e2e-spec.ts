import { RelayRecoveryService } from '../../src/relay/relay-recovery.service.js';
import { SyncLogRepository } from '../../src/sync-log/sync-log.repository.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();
const A2 = '/v1/appointment_crm/batch/associate_project';

describe('sync log routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 8 });
  });
  afterAll(() => h.close());

  const entry = async (id: string): Promise<Json> => json(await h.admin(`/api/sync-logs/${id}`));
  const finished = (id: string, status: string) =>
    waitFor(
      async () => {
        const e = await entry(id);
        return e.status === status ? e : null;
      },
      15_000,
      `entry ${id} ${status}`,
    );
  const associate = async (): Promise<string[]> => (await json(await h.admin('/api/mappings/associate', { method: 'POST' }))).sync_log_ids;
  const addMapping = async (crm: 'appointment' | 'record', projectId: string, key: string) =>
    json(
      await h.admin('/api/mappings', {
        method: 'POST',
        json:
          crm === 'appointment'
            ? { crm, appointment_id: key, project_id: projectId }
            : { crm, record_crm_module: 'Deals', record_crm_record_id: key, project_id: projectId },
      }),
    );

  it('retries a failed entry: 409 while not failed, then the mappings get associated', async () => {
    const projects = [h.service.addProject().id, h.service.addProject().id];
    const maps = [await addMapping('appointment', projects[0], 'R-1'), await addMapping('appointment', projects[1], 'R-2')];
    // More 503s than the tries (4 runs x 3 client tries with the test tuning): the entry fails.
    h.service.injectFault({ method: 'POST', path: A2, times: 100, status: 503 });
    const [id] = await associate();
    const failed = await finished(id, 'failed');
    expect(failed).toMatchObject({ kind: 'associate', attempts: h.config.jobs.attempts, crm: 'appointment' });
    expect(failed.error).toContain('HTTP 503');
    expect(failed.finished_at).toEqual(expect.stringMatching(/Z$/));
    expect(failed.duration_ms).toEqual(expect.any(Number));
    expect(failed.payload).toEqual({ mapping_ids: maps.map((m: Json) => m.id) });
    // Given up: the claims went back, the mappings stay pending.
    const rows = await h.database.query(`SELECT status, claimed_by FROM mapping WHERE id = ANY($1::bigint[])`, [maps.map((m: Json) => m.id)]);
    expect(rows).toEqual([
      { status: 'pending', claimed_by: null },
      { status: 'pending', claimed_by: null },
    ]);

    h.service.clearFaults();
    const retried = await h.admin(`/api/sync-logs/${id}/retry`, { method: 'POST' });
    expect(retried.status).toBe(202);
    expect((await json(retried)).status).toBe('queued');
    const done = await finished(id, 'succeeded');
    expect(done.detail).toContain('2 associated');
    expect(done.error).toContain('HTTP 503'); // the last failure's reason stays readable
    expect(h.service.appointmentAssociations.get(projects[1])).toBe('R-2');

    const again = await h.admin(`/api/sync-logs/${id}/retry`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ status: 'succeeded', message: expect.stringContaining('only a failed entry can be retried') });
  });

  it('a stale claim of a failed action is released by the next trigger', async () => {
    const projectId = h.service.addProject().id;
    const m = await addMapping('appointment', projectId, 'STALE-1');
    // As if a worker died mid-way and its action was failed without releasing: the claim points at a failed entry.
    const [{ id: fake }] = await h.database.query<Array<{ id: string }>>(
      `INSERT INTO sync_log (kind, trigger, status, finished_at) VALUES ('associate', 'admin', 'failed', now()) RETURNING id`,
    );
    await h.database.query(`UPDATE mapping SET claimed_by = $1 WHERE id = $2`, [fake, m.id]);
    const [id] = await associate();
    await finished(id, 'succeeded');
    expect(h.service.appointmentAssociations.get(projectId)).toBe('STALE-1');
  });

  it('answers 404 for an unknown entry and 400 for a non-numeric id', async () => {
    expect((await h.admin('/api/sync-logs/999999999')).status).toBe(404);
    expect((await h.admin('/api/sync-logs/999999999/retry', { method: 'POST' })).status).toBe(404);
    const bad = await h.admin('/api/sync-logs/abc');
    expect(bad.status).toBe(400);
    expect((await json(bad)).message).toContain('id must be a positive integer');
  });

  it('filters by status, kind, project and since, and pages with a cursor', async () => {
    const project = h.service.addProject();
    const recordProject = project.id;
    await addMapping('record', recordProject, '555');
    const [recordEntry] = await associate();
    await finished(recordEntry, 'succeeded');
    // The project view reads the project's name (P4) the first time it is shown; the entries carry it from then on.
    await h.admin(`/api/projects/${recordProject}`);

    const byProject = await json(await h.admin(`/api/sync-logs?project_id=${recordProject}`));
    // The associate action, and before it the record of the admin's write that created the mapping.
    expect(byProject.items.map((e: Json) => e.kind)).toEqual(['associate', 'admin_write']);
    expect(byProject.items[1]).toMatchObject({ trigger: 'admin', actor: 'admin', status: 'succeeded', target: 'Deals/555' });
    expect(byProject.items[0]).toEqual({
      id: recordEntry,
      kind: 'associate',
      trigger: 'admin',
      project_id: recordProject,
      project_name: project.name,
      crm: 'record',
      target: 'Deals/555',
      target_name: null,
      target_web_url: null,
      status: 'succeeded',
      attempts: 1,
      error: null,
      created_at: expect.stringMatching(/^\d{4}-.*Z$/),
      finished_at: expect.stringMatching(/Z$/),
      duration_ms: expect.any(Number),
      detail: expect.stringContaining('C1: Deals/555 associated'),
      payload: { mapping_ids: [expect.stringMatching(/^\d+$/)] },
      parent_id: null,
      inbox_id: null,
      actor: 'admin',
    });

    const succeeded = await json(await h.admin('/api/sync-logs?status=succeeded&kind=associate'));
    expect(succeeded.items.length).toBeGreaterThanOrEqual(3);
    expect(succeeded.items.every((e: Json) => e.status === 'succeeded' && e.kind === 'associate')).toBe(true);
    expect((await json(await h.admin('/api/sync-logs?kind=push_drawings'))).items).toEqual([]);

    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await json(await h.admin(`/api/sync-logs?since=${future}`))).items).toEqual([]);
    const past = await json(await h.admin(`/api/sync-logs?since=2000-01-01T00:00:00Z`));
    expect(past.items.length).toBeGreaterThanOrEqual(4);
    const invalid = await h.admin('/api/sync-logs?since=yesterday');
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(await json(invalid))).toContain('since must be an ISO 8601 date-time');
    expect((await h.admin('/api/sync-logs?status=done')).status).toBe(400);
    expect((await h.admin('/api/sync-logs?limit=501')).status).toBe(400);

    const all = (await json(await h.admin('/api/sync-logs?limit=500'))).items.map((e: Json) => e.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await json(await h.admin(`/api/sync-logs?limit=1${cursor ? `&cursor=${cursor}` : ''}`));
      paged.push(...page.items.map((e: Json) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect(all.map(Number)).toEqual([...all.map(Number)].sort((a, b) => b - a)); // newest first
  });

  it('fails entries no handler runs, whether the relay or the recovery finds them, page by page', async () => {
    const insert = (enqueuedAt: string): Promise<Array<{ id: string }>> =>
      h.database.query(
        `INSERT INTO sync_log (kind, trigger, status, updated_at, enqueued_at)
         SELECT 'retired_kind', 'admin', 'queued', now() - interval '10 minutes', ${enqueuedAt} FROM generate_series(1, 5) RETURNING id::text`,
      );
    const unrelayed = await insert('NULL');
    const lost = await insert("now() - interval '10 minutes'");
    const reason = 'no handler for action kind retired_kind';
    await waitFor(async () => (await Promise.all(unrelayed.map(({ id }) => entry(id)))).every((e) => e.status === 'failed'), 10_000, 'the relay');
    for (const { id } of unrelayed) expect(await entry(id)).toMatchObject({ status: 'failed', error: reason });
    expect((await h.app.get(RelayRecoveryService).recover(60_000, 2)).actions).toBeGreaterThanOrEqual(5);
    for (const { id } of lost) expect(await entry(id)).toMatchObject({ status: 'failed', error: reason });
    // Reported like any action failed for good (recorded, not sent: this daemon has no ALERT_WEBHOOK_URL).
    const reported = await waitFor(
      async () => {
        const rows = await h.database.query<Array<{ id: string }>>(`SELECT unnest(entries) AS id FROM alert WHERE kind = 'action_failed'`);
        const ids = new Set(rows.map((r) => r.id));
        return [...unrelayed, ...lost].every(({ id }) => ids.has(id)) ? ids : null;
      },
      10_000,
      'the action_failed alert events',
    );
    expect(reported.size).toBeGreaterThanOrEqual(10);
  });

  describe('a run that failed and will be tried again (awaitRetry)', () => {
    let seq = 0;
    const repository = () => h.app.get(SyncLogRepository);
    const reason = 'appointment-crm GET /appointments/APT-9 failed: HTTP 503 injected 503';
    /** A drawing push running now: its job waits an hour, so no worker touches it during the test. */
    const recordPush = async (coalesceKey: string) => {
      const [recorded] = await repository().record([
        { kind: 'push_drawings', trigger: 'webhook', crm: 'appointment', projectId: `p${seq++}`, target: 'APT-9', coalesceKey, delayMs: 3_600_000 },
      ]);
      return recorded;
    };
    const row = async (id: string) =>
      (
        await h.database.query<Json[]>(
          `SELECT status, coalesce_key, error, detail, finished_at IS NOT NULL AS finished, duration_ms FROM sync_log WHERE id = $1`,
          [id],
        )
      )[0];

    it('finishes it skipped, superseded by the entry queued with its coalesce key meanwhile, which stays queued', async () => {
      const coalesceKey = `push_drawings:APT-S${seq++}`;
      const running = await recordPush(coalesceKey);
      expect(await repository().startRun(running.entry.id)).toMatchObject({ status: 'running', coalesceKey });
      const newer = await recordPush(coalesceKey);
      expect(newer.created).toBe(true);

      expect(await repository().awaitRetry(running.entry.id, reason)).toBe(newer.entry.id);

      expect(await row(running.entry.id)).toEqual({
        status: 'skipped',
        coalesce_key: null,
        error: reason,
        detail: `superseded by #${newer.entry.id}, queued during this run, which does the same work on current data`,
        finished: true,
        duration_ms: expect.any(Number),
      });
      expect(await row(newer.entry.id)).toMatchObject({ status: 'queued', coalesce_key: coalesceKey, finished: false });
    });

    it('puts it back to queued with the reason when no other entry holds its coalesce key', async () => {
      const coalesceKey = `push_drawings:APT-R${seq++}`;
      const running = await recordPush(coalesceKey);
      await repository().startRun(running.entry.id);

      expect(await repository().awaitRetry(running.entry.id, reason)).toBeNull();

      expect(await row(running.entry.id)).toEqual({
        status: 'queued',
        coalesce_key: coalesceKey,
        error: reason,
        detail: null,
        finished: false,
        duration_ms: null,
      });
      // Queued again, it holds the key: a new event joins it.
      expect(await recordPush(coalesceKey)).toMatchObject({ created: false, entry: { id: running.entry.id } });
    });
  });
});
