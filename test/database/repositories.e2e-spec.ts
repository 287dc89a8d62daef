import { AppointmentDrawingPushRepository } from '../../src/appointment-crm/appointment-drawing-push.repository.js';
import type { MappingInput } from '../../src/mappings/dto/mapping-input.dto.js';
import { MappingRepository } from '../../src/mappings/mapping.repository.js';
import { SyncLogRepository } from '../../src/sync-log/sync-log.repository.js';
import { ProjectRepository } from '../../src/projects/project.repository.js';
import { ProjectsService } from '../../src/projects/projects.service.js';
import { startHarness, type Harness } from '../support/harness.js';

/** Ids of the service exceed 2^53: they stay exact strings. */
const BIG = '9007199254740993';

const appointment = (appointmentId: string, projectId: string): MappingInput => ({
  crm: 'appointment',
  appointmentId,
  recordCrmModule: null,
  recordCrmRecordId: null,
  projectId,
});
const record = (module: 'Deals' | 'Leads', recordId: string, projectId: string): MappingInput => ({
  crm: 'record',
  appointmentId: null,
  recordCrmModule: module,
  recordCrmRecordId: recordId,
  projectId,
});

/** Repository methods whose statements no route test pins down: the parameters they build, and what they answer. */
describe('repositories', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 14 });
  });
  afterAll(() => h.close());

  describe(MappingRepository.name, () => {
    const mappings = () => h.app.get(MappingRepository);

    it('finds the mappings in the way of inputs: same appointment, same record (module and id), or same project and CRM', async () => {
      const [byAppointment, byRecord, byProject] = await mappings().insertMany([
        appointment(`A-${BIG}`, 'c-1'),
        record('Deals', BIG, 'c-2'),
        record('Deals', '77', 'c-3'),
      ]);

      const found = await mappings().findConflicting([
        appointment(`A-${BIG}`, 'c-9'),
        appointment('A-other', 'c-1'),
        record('Deals', BIG, 'c-8'),
        record('Deals', '78', 'c-3'),
      ]);
      expect(found.map((m) => m.id)).toEqual([byAppointment.id, byRecord.id, byProject.id]);
      expect(found[1]).toMatchObject({ crm: 'record', recordCrmModule: 'Deals', recordCrmRecordId: BIG, projectId: 'c-2', status: 'pending' });

      // Another module's record of the same id, or an appointment mapping of a record's project, is in nobody's way.
      expect(await mappings().findConflicting([record('Leads', BIG, 'c-7'), appointment('A-x', 'c-2')])).toEqual([]);
    });

    it('lists newest first with each filter and the cursor as parameters, and counts pending mappings by CRM and project', async () => {
      const made = await mappings().insertMany([
        appointment('L-1', 'l-1'),
        appointment('L-2', 'l-2'),
        record('Leads', 'L-3', 'l-1'),
        appointment('L-4', 'l-4'),
      ]);
      const ids = made.map((m) => m.id);
      await h.database.query(`UPDATE mapping SET status = 'failed', error = 'x' WHERE id = $1`, [ids[3]]);

      const pendingAppointments = await mappings().list({ crm: 'appointment', status: 'pending', limit: 100 });
      expect(pendingAppointments.map((m) => m.id)).toEqual(expect.arrayContaining([ids[1], ids[0]]));
      expect(pendingAppointments.map((m) => m.id)).not.toContain(ids[3]);
      expect(pendingAppointments.every((m, i, all) => i === 0 || BigInt(all[i - 1].id) > BigInt(m.id))).toBe(true);
      expect((await mappings().list({ projectId: 'l-1', limit: 100 })).map((m) => m.id)).toEqual([ids[2], ids[0]]);
      expect((await mappings().list({ projectId: 'l-1', cursor: ids[2], limit: 100 })).map((m) => m.id)).toEqual([ids[0]]);
      expect((await mappings().list({ status: 'failed', limit: 1 })).map((m) => m.id)).toEqual([ids[3]]);

      expect(await mappings().countPending({ projectId: 'l-1' })).toBe(2);
      expect(await mappings().countPending({ crm: 'record', projectId: 'l-1' })).toBe(1);
      expect(await mappings().countPending({ projectId: 'l-4' })).toBe(0);
    });

    it('answers the mapped projects (pending or associated) in byte order of their ids, after a given one', async () => {
      const made = await mappings().insertMany([
        appointment('P-1', 'b-proj'),
        appointment('P-2', 'B-proj'),
        appointment('P-3', 'a-proj'),
        appointment('P-4', 'z-failed'),
      ]);
      await h.database.query(`UPDATE mapping SET status = 'associated' WHERE id = $1`, [made[2].id]);
      await h.database.query(`UPDATE mapping SET status = 'failed' WHERE id = $1`, [made[3].id]);

      const all = await mappings().findMappedProjectsAfter(null, 1000);
      const ours = all.filter((p) => p.endsWith('-proj') || p === 'z-failed');
      // "C": upper case before lower case, whatever the server's collation.
      expect(ours).toEqual(['B-proj', 'a-proj', 'b-proj']);
      expect(await mappings().findMappedProjectsAfter('a-proj', 1)).toEqual(['b-proj']);
      expect(await mappings().findMappedProjectsAmong(['a-proj', 'z-failed', 'a-proj', 'nobody'])).toEqual(new Set(['a-proj']));
      expect(await mappings().countMappedProjects()).toBe(all.length);
    });
  });

  describe(AppointmentDrawingPushRepository.name, () => {
    it('replaces what an appointment was pushed from, and an empty push clears it, leaving other appointments alone', async () => {
      const pushes = h.app.get(AppointmentDrawingPushRepository);
      const at = new Date('2026-01-02T03:04:05.000Z');
      await pushes.replaceForAppointment('APT-other', [{ drawingId: BIG, drawingVersionId: '1' }], at);
      await pushes.replaceForAppointment('APT-1', [{ drawingId: BIG, drawingVersionId: '1' }], at);
      await pushes.replaceForAppointment(
        'APT-1',
        [
          { drawingId: BIG, drawingVersionId: '2' },
          { drawingId: '12', drawingVersionId: '3' },
        ],
        at,
      );

      const rows = (await pushes.findByAppointment('APT-1')).sort((a, b) => a.drawingId.localeCompare(b.drawingId));
      expect(rows).toEqual([
        { appointmentId: 'APT-1', drawingId: '12', drawingVersionId: '3', pushedAt: at },
        { appointmentId: 'APT-1', drawingId: BIG, drawingVersionId: '2', pushedAt: at },
      ]);

      await pushes.replaceForAppointment('APT-1', [], at);
      expect(await pushes.findByAppointment('APT-1')).toEqual([]);
      expect(await pushes.findByAppointment('APT-other')).toEqual([{ appointmentId: 'APT-other', drawingId: BIG, drawingVersionId: '1', pushedAt: at }]);
    });
  });

  describe(ProjectRepository.name, () => {
    const facts = (projectId: string, name: string, seenAt: Date) => ({
      projectId,
      name,
      customer: { name: null, email: null, phone: null },
      jobNumber: null,
      seenAt,
    });

    it('keeps the latest facts of a project, whether they come in one statement or after newer ones', async () => {
      const projects = h.app.get(ProjectRepository);
      const early = new Date('2026-11-27T01:00:00Z');
      const late = new Date('2026-11-27T01:05:00Z');
      await projects.remember([facts(BIG, 'Later name', late), facts(BIG, 'Earlier name', early), facts('p-2', 'Second', early)]);
      await projects.remember([facts(BIG, 'Routed late', early)]);
      const found = await projects.findByIds([BIG, 'p-2']);
      expect(new Map(found.map((p) => [p.projectId, p.name]))).toEqual(
        new Map([
          [BIG, 'Later name'],
          ['p-2', 'Second'],
        ]),
      );
    });

    it("shares one statement among concurrent callers, each keeping its own time (the routing's burst)", async () => {
      const service = h.app.get(ProjectsService);
      const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 2, minute));
      const project = (id: string, name: string) => ({ id, name, tags: [], source: 'web' }) as never;
      await Promise.all([
        service.remember([project('c-10', 'Ten at 2')], at(2)),
        service.remember([project('c-10', 'Ten at 1')], at(1)),
        service.remember([project('c-11', 'Eleven')], at(1)),
        service.remember([project('c-10', 'Ten at 3')], at(3)),
      ]);
      const found = await h.app.get(ProjectRepository).findByIds(['c-10', 'c-11']);
      expect(new Map(found.map((p) => [p.projectId, p.name]))).toEqual(
        new Map([
          ['c-10', 'Ten at 3'],
          ['c-11', 'Eleven'],
        ]),
      );
    });
  });

  describe(SyncLogRepository.name, () => {
    const syncLog = () => h.app.get(SyncLogRepository);
    /** A finished entry written directly (no worker picks up a finished one). */
    const entry = async (fields: { kind: string; status: string; crm?: string; projectId?: string; createdAt?: Date; inboxId?: string }) => {
      const [row] = await h.database.query<Array<{ id: string }>>(
        `INSERT INTO sync_log (kind, trigger, status, crm, project_id, created_at, inbox_id) VALUES ($1, 'admin', $2, $3, $4, COALESCE($5, now()), $6) RETURNING id::text AS id`,
        [fields.kind, fields.status, fields.crm ?? null, fields.projectId ?? null, fields.createdAt ?? null, fields.inboxId ?? null],
      );
      return row.id;
    };

    it('lists entries with each filter as a parameter, newest first, and pages with the cursor', async () => {
      const old = await entry({ kind: 'add_note', status: 'failed', crm: 'record', projectId: 's-1', createdAt: new Date('2026-01-01T00:00:00Z') });
      const a = await entry({ kind: 'add_note', status: 'failed', crm: 'record', projectId: 's-1' });
      const b = await entry({ kind: 'add_note', status: 'succeeded', crm: 'record', projectId: 's-1' });
      const c = await entry({ kind: 'push_drawings', status: 'failed', crm: 'appointment', projectId: 's-1' });

      const ids = async (filter: Parameters<SyncLogRepository['list']>[0]) => (await syncLog().list(filter)).items.map((e) => e.id);
      expect(await ids({ projectId: 's-1', limit: 10 })).toEqual([c, b, a, old]);
      expect(await ids({ projectId: 's-1', status: 'failed', kind: 'add_note', crm: 'record', limit: 10 })).toEqual([a, old]);
      expect(await ids({ projectId: 's-1', since: new Date('2026-02-01T00:00:00Z'), limit: 10 })).toEqual([c, b, a]);

      const first = await syncLog().list({ projectId: 's-1', limit: 2 });
      expect(first.items.map((e) => e.id)).toEqual([c, b]);
      expect(first.nextCursor).toBe(b);
      const second = await syncLog().list({ projectId: 's-1', limit: 2, cursor: first.nextCursor! });
      expect(second).toMatchObject({ nextCursor: null });
      expect(second.items.map((e) => e.id)).toEqual([a, old]);
      expect(second.items[0]).toMatchObject({ kind: 'add_note', status: 'failed', crm: 'record', projectId: 's-1', inboxId: null, parentId: null });
      expect(second.items[0].createdAt).toBeInstanceOf(Date);

      expect((await syncLog().findNewestByProject('s-1', 3)).map((e) => e.id)).toEqual([c, b, a]);
    });

    it('counts and picks the oldest failed entries by kind, CRM, project and creation time', async () => {
      const old = await entry({ kind: 'set_status', status: 'failed', crm: 'appointment', projectId: 'f-1', createdAt: new Date('2026-01-01T00:00:00Z') });
      const a = await entry({ kind: 'set_status', status: 'failed', crm: 'appointment', projectId: 'f-1' });
      await entry({ kind: 'set_status', status: 'succeeded', crm: 'appointment', projectId: 'f-1' });
      const b = await entry({ kind: 'add_note', status: 'failed', crm: 'record', projectId: 'f-1' });

      expect(await syncLog().countFailed({ projectId: 'f-1' })).toBe(3);
      expect(await syncLog().findOldestFailedIds({ projectId: 'f-1' }, 2)).toEqual([old, a]);
      expect(
        await syncLog().findOldestFailedIds({ projectId: 'f-1', kind: 'set_status', crm: 'appointment', since: new Date('2026-02-01T00:00:00Z') }, 10),
      ).toEqual([a]);
      expect(await syncLog().countFailed({ projectId: 'f-1', crm: 'record' })).toBe(1);
      expect(await syncLog().findOldestFailedIds({ projectId: 'f-1', crm: 'record' }, 10)).toEqual([b]);
    });

    it('answers a delivery entries oldest first, and merges progress into an entry payload', async () => {
      const first = await entry({ kind: 'add_note', status: 'succeeded', inboxId: BIG });
      const second = await entry({ kind: 'add_note', status: 'skipped', inboxId: BIG });
      expect((await syncLog().findByInbox(BIG)).map((e) => [e.id, e.inboxId])).toEqual([
        [first, BIG],
        [second, BIG],
      ]);

      await h.database.query(`UPDATE sync_log SET payload = '{"scope":"full","after":null}' WHERE id = $1`, [first]);
      await syncLog().saveProgress(first, { after: BIG, done: 3, total: 9 }, 'three of nine');
      expect(await syncLog().get(first)).toMatchObject({ payload: { scope: 'full', after: BIG, done: 3, total: 9 }, detail: 'three of nine' });
    });
  });
});
