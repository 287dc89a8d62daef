import { events, WebhookSender } from '../../sim/service/index.js';
import { EVENTS_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();
const A2 = '/v1/appointment_crm/batch/associate_project';
const C1 = '/v1/record_crm/associate_project';

describe('mapping association (A2, C1) as sync actions', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 7 });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.service.clearFaults();
    h.service.failItemStyle = 'flat';
  });

  /** n appointment mappings on fresh projects of the simulator. */
  async function appointmentMappings(n: number): Promise<Array<{ id: string; appointment_id: string; project_id: string }>> {
    const tag = ++seq;
    const items = Array.from({ length: n }, (_, i) => ({ crm: 'appointment', appointment_id: `T${tag}-APT-${i}`, project_id: h.service.addProject().id }));
    const body = await json(await h.admin('/api/mappings', { method: 'POST', json: { items } }));
    expect(body.created).toBe(n);
    return body.items.map((i: Json) => i.mapping);
  }

  const mapping = async (id: string): Promise<Json> => (await h.database.query<Json[]>(`SELECT status, error, claimed_by FROM mapping WHERE id = $1`, [id]))[0];
  const statuses = async (ids: string[]): Promise<Record<string, number>> => {
    const rows: Array<{ status: string; n: string }> = await h.database.query(
      `SELECT status, count(*) AS n FROM mapping WHERE id = ANY($1::bigint[]) GROUP BY status`,
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  };
  const trigger = async (): Promise<string[]> => {
    const res = await h.admin('/api/mappings/associate', { method: 'POST' });
    expect(res.status).toBe(202);
    return (await json(res)).sync_log_ids;
  };
  const entry = async (id: string): Promise<Json> => json(await h.admin(`/api/sync-logs/${id}`));
  const settled = (ids: string[]) =>
    waitFor(
      async () => {
        const all = await Promise.all(ids.map(entry));
        return all.every((e) => ['succeeded', 'failed', 'skipped'].includes(e.status)) ? all : null;
      },
      15_000,
      'associate actions to finish',
    );
  const a2Items = (from: number) =>
    h.service
      .requestsTo('POST', A2)
      .slice(from)
      .map((r) => (JSON.parse(r.body.toString('utf8')).items as Json[]).map((i) => i.appointment_id));

  it('sends 250 appointment mappings in exactly 3 A2 calls of at most 100', async () => {
    const maps = await appointmentMappings(250);
    const before = h.service.requestsTo('POST', A2).length;
    const ids = await trigger();
    expect(ids).toHaveLength(3);
    const entries = await settled(ids);
    expect(entries.map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(entries[0]).toMatchObject({ kind: 'associate', trigger: 'admin', crm: 'appointment', attempts: 1, error: null });
    expect(entries[0].detail).toContain('100 associated');
    const calls = a2Items(before);
    expect(calls.map((c) => c.length)).toEqual(expect.arrayContaining([100, 100, 50]));
    expect(calls).toHaveLength(3);
    expect(await statuses(maps.map((m) => m.id))).toEqual({ associated: 250 });
    expect(h.service.appointmentAssociations.get(maps[7].project_id)).toBe(maps[7].appointment_id);
    // Nothing pending any more: a second trigger starts nothing.
    expect(await trigger()).toEqual([]);
  });

  it.each(['flat', 'wrapped'] as const)('marks %s fail items failed with their message', async (style) => {
    h.service.failItemStyle = style;
    const [taken, free] = await appointmentMappings(2);
    // The service already has another appointment on the first project.
    h.service.appointmentAssociations.set(taken.project_id, `OTHER-${style}`);
    const [id] = await trigger();
    const [done] = await settled([id]);
    expect(done.status).toBe('succeeded');
    expect(done.detail).toContain('1 associated, 1 failed');
    expect(await mapping(taken.id)).toEqual({ status: 'failed', error: 'project already associated with an appointment', claimed_by: null });
    expect((await mapping(free.id)).status).toBe('associated');
    const listed = await json(await h.admin(`/api/mappings?project_id=${taken.project_id}`));
    expect(listed.items[0]).toMatchObject({ status: 'failed', error: 'project already associated with an appointment' });
  });

  it('recovers from 429 with Retry-After and from 503', async () => {
    const maps = await appointmentMappings(3);
    h.service.injectFault({ method: 'POST', path: A2, times: 1, status: 429, retryAfterSeconds: 1 });
    h.service.injectFault({ method: 'POST', path: A2, times: 4, status: 503 });
    const before = h.service.requestsTo('POST', A2).length;
    const [id] = await trigger();
    const [done] = await settled([id]);
    expect(done.status).toBe('succeeded');
    expect(done.attempts).toBeGreaterThanOrEqual(2); // the client's own tries ran out once
    const calls = h.service.requestsTo('POST', A2).slice(before);
    expect(calls).toHaveLength(6);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(950); // waited out Retry-After
    expect(await statuses(maps.map((m) => m.id))).toEqual({ associated: 3 });
  });

  it('leaves mappings missing from the answer pending and unclaimed', async () => {
    const maps = await appointmentMappings(2);
    h.service.injectFault({
      method: 'POST',
      path: A2,
      times: 1,
      status: 200,
      body: { success_items: [{ appointment_id: maps[0].appointment_id, project_id: maps[0].project_id }], fail_items: [] },
    });
    const [id] = await trigger();
    const [done] = await settled([id]);
    expect(done.detail).toContain('1 left pending');
    expect(await mapping(maps[1].id)).toEqual({ status: 'pending', error: null, claimed_by: null });
    const [again] = await trigger();
    await settled([again]);
    expect((await mapping(maps[1].id)).status).toBe('associated');
  });

  it('sends record mappings one by one through C1, project_id as an exact JSON integer', async () => {
    const projects = [h.service.addProject().id, h.service.addProject().id];
    for (const [i, projectId] of projects.entries()) {
      expect(
        (
          await h.admin('/api/mappings', {
            method: 'POST',
            json: { crm: 'record', record_crm_module: 'Deals', record_crm_record_id: `41508680000043570${i}`, project_id: projectId },
          })
        ).status,
      ).toBe(201);
    }
    const before = h.service.requestsTo('POST', C1).length;
    const ids = await trigger();
    expect(ids).toHaveLength(2);
    const entries = await settled(ids);
    expect(entries.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(entries[0]).toMatchObject({ crm: 'record', project_id: projects[0], target: 'Deals/415086800000435700' });
    const bodies = h.service
      .requestsTo('POST', C1)
      .slice(before)
      .map((r) => r.body.toString('utf8'));
    expect(bodies).toHaveLength(2);
    // The two actions run concurrently, so in either order; each project id bare and exact (e.g. 36029621652695267).
    for (const projectId of projects) expect(bodies.filter((b) => b.endsWith(`"project_id":${projectId}}`))).toHaveLength(1);
    expect(h.service.recordAssociations.get(projects[1])).toEqual({ module: 'Deals', recordId: '415086800000435701' });
  });

  it('fails a record mapping with the reason when C1 answers 4xx', async () => {
    const res = await h.admin('/api/mappings', {
      method: 'POST',
      json: { crm: 'record', record_crm_module: 'Leads', record_crm_record_id: '123', project_id: '999999999999999999999' },
    });
    const m = await json(res);
    const [id] = await trigger();
    const [done] = await settled([id]);
    expect(done.status).toBe('failed');
    expect(done.attempts).toBe(1);
    expect(done.error).toContain('HTTP 404');
    const row = await mapping(m.id);
    expect(row).toMatchObject({ status: 'failed', claimed_by: null });
    expect(row.error).toContain('project not found');
  });

  it('sends each mapping exactly once when two triggers race', async () => {
    const maps = await appointmentMappings(230);
    h.service.latencyMs = 20;
    const before = h.service.requestsTo('POST', A2).length;
    try {
      const [a, b] = await Promise.all([trigger(), trigger()]);
      const ids = [...a, ...b];
      expect(ids.length).toBeGreaterThanOrEqual(3);
      await settled(ids);
    } finally {
      h.service.latencyMs = 0;
    }
    const sent = a2Items(before).flat();
    expect(sent).toHaveLength(230);
    expect(new Set(sent).size).toBe(230);
    expect(await statuses(maps.map((m) => m.id))).toEqual({ associated: 230 });
  });

  it('C1 writes a project id beyond 2^53 digit for digit', async () => {
    const projectId = '9007199254740993'; // 2^53 + 1: a double would make it ...992
    h.service.addProject({ id: projectId });
    const body = await json(
      await h.admin('/api/mappings', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"crm":"record","record_crm_module":"Quotes","record_crm_record_id":"77","project_id":${projectId}}`,
      }),
    );
    expect(body.project_id).toBe(projectId);
    await settled(await trigger());
    const sent = h.service
      .requestsTo('POST', C1)
      .map((r) => r.body.toString('utf8'))
      .filter((b) => b.includes('"77"'));
    expect(sent).toEqual([`{"record_crm_module":"Quotes","record_crm_record_id":"77","project_id":${projectId}}`]);
    expect(h.service.recordAssociations.get(projectId)).toEqual({ module: 'Quotes', recordId: '77' });
  });

  it('associates a pending mapping when project.created arrives for its project', async () => {
    const project = h.service.addProject();
    const created = await json(
      await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: `NEW-${++seq}`, project_id: project.id } }),
    );
    const answer = await new WebhookSender().deliverOnce(`${h.url}/webhooks/events`, events.projectCreated(project), { secret: EVENTS_SECRET });
    expect(JSON.parse(answer.body)).toEqual({ status: 'accepted' });
    await waitFor(async () => (await mapping(created.id)).status === 'associated', 15_000, 'the mapping to be associated');
    expect(h.service.appointmentAssociations.get(project.id)).toBe(created.appointment_id);
    const triggers = await json(await h.admin(`/api/sync-logs?kind=associate_project&project_id=${project.id}`));
    expect(triggers.items).toHaveLength(1);
    expect(triggers.items[0]).toMatchObject({ trigger: 'webhook', status: 'succeeded' });
  });
});
