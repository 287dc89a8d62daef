import { APPOINTMENT_PAGE_SIZE, AutomationPollerService } from '../../src/automations/automation-poller.service.js';
import { allActionsFinished } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;

const BACKLOG = 10_000;
const SOLD_EVERY = 100;
const OWNER = 'owner@example.com';
/** The service's rate cap for the deployment: the projects' P5 and P2 calls keep to it. */
const MAX_RPS = 40;

describe('automations: a long backlog, a read cut off, the schedule', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, appointmentCrm: true, env: { AUTOMATION_POLL_SECONDS: '0', SERVICE_API_MAX_RPS: String(MAX_RPS) } });
    const res = await h.admin('/api/automations/appointment-crm', {
      method: 'PUT',
      json: { create_projects: true, statuses: ['Sold'], owner: OWNER, start_from: '2025-12-31T00:00:00Z' },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => h.close());

  const pollState = async (): Promise<Json> =>
    (await h.database.query<Json[]>(`SELECT cursor, page_token, last_error FROM automation_poll WHERE crm = 'appointment'`))[0];
  const listings = () => h.appointmentCrm!.requests.filter((r) => r.method === 'GET' && r.path === '/appointments');
  const createEntries = async () => Number((await h.database.query<Json[]>(`SELECT count(*) AS n FROM sync_log WHERE kind = 'create_project'`))[0].n);

  it(`reads ${BACKLOG} changes page by page, resumes a read cut off after the last page it recorded, and makes each project once within the rate cap`, async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < BACKLOG; i++) {
      const id = `${9007199254741000n + BigInt(i)}`;
      ids.push(id);
      h.appointmentCrm!.addAppointment(id, { status: i % SOLD_EVERY === 0 ? 'Sold' : 'Scheduled', updated_at: new Date(start + i * 1000).toISOString() });
    }
    // The listing fails for good at the page after the 20th: the read stops there.
    const cutAt = 20 * APPOINTMENT_PAGE_SIZE - 1;
    const cursorAfterCut = Buffer.from(JSON.stringify([new Date(start + cutAt * 1000).toISOString(), ids[cutAt]])).toString('base64url');
    h.appointmentCrm!.injectFault({ method: 'GET', path: '/appointments', times: 3, status: 503, when: (req) => req.query.get('cursor') === cursorAfterCut });

    const poller = h.app.get(AutomationPollerService);
    await expect(poller.poll('appointment')).rejects.toThrow(/503/);
    expect(await pollState()).toMatchObject({ page_token: cursorAfterCut, last_error: expect.stringContaining('503') });
    expect(await createEntries()).toBe(20 * (APPOINTMENT_PAGE_SIZE / SOLD_EVERY));

    const before = listings().length;
    const resumed = await poller.poll('appointment');
    const calls = listings().slice(before);
    expect(calls[0].query.get('cursor')).toBe(cursorAfterCut);
    expect(calls.every((r) => r.query.get('limit') === String(APPOINTMENT_PAGE_SIZE))).toBe(true);
    expect(resumed).toMatchObject({ state: 'read', changed: BACKLOG - 20 * APPOINTMENT_PAGE_SIZE, pages: calls.length, created: 60 });
    expect(await pollState()).toMatchObject({ page_token: null, last_error: null, cursor: new Date(start + (BACKLOG - 1) * 1000).toISOString() });

    await waitFor(
      async () => [...h.service.projects.values()].filter((p) => p.tags.includes('crm-sync')).length === BACKLOG / SOLD_EVERY,
      60_000,
      'the projects',
    );
    await allActionsFinished(h);
    expect(h.service.maxApiRequestsInWindow(1_000)).toBeLessThanOrEqual(MAX_RPS);
    const names = [...h.service.projects.values()].map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(await createEntries()).toBe(BACKLOG / SOLD_EVERY);

    // Read again from the end: only the last change is read again, and nothing new is recorded.
    const again = await poller.poll('appointment');
    expect(again).toMatchObject({ state: 'read', changed: 1, created: 0 });
  }, 120_000);

  it('reads on the schedule, on one replica of two, with nobody asking', async () => {
    const scheduled = await startHarness({ redisDb: 12, appointmentCrm: true, env: { AUTOMATION_POLL_SECONDS: '1' } });
    const replica = await startHarness({
      redisDb: 12,
      databaseUrl: scheduled.databaseUrl,
      env: {
        AUTOMATION_POLL_SECONDS: '1',
        QUEUE_PREFIX: scheduled.config.queuePrefix,
        ...scheduled.service.daemonEnv(),
        ...scheduled.appointmentCrm!.daemonEnv(),
      },
    });
    try {
      const res = await scheduled.admin('/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: true, owner: OWNER } });
      expect(res.status).toBe(200);
      scheduled.appointmentCrm!.addAppointment('APT-SCHEDULED', { status: 'Booked' });
      await waitFor(() => [...scheduled.service.projects.values()].find((p) => p.name === 'Appointment (APT-SCHEDULED)'), 15_000, 'the scheduled read');
      const started = scheduled.appointmentCrm!.requests.filter((r) => r.path === '/appointments').length;
      await new Promise((r) => setTimeout(r, 4_000));
      const reads = scheduled.appointmentCrm!.requests.filter((r) => r.path === '/appointments').length - started;
      // One read a second for the deployment, not one per replica (a read is one page here).
      expect(reads).toBeGreaterThanOrEqual(1);
      expect(reads).toBeLessThanOrEqual(5);
      expect([...scheduled.service.projects.values()].filter((p) => p.name === 'Appointment (APT-SCHEDULED)')).toHaveLength(1);
      expect((await scheduled.database.query<Json[]>(`SELECT last_run_at FROM automation_poll WHERE crm = 'appointment'`))[0].last_run_at).not.toBeNull();
    } finally {
      await replica.close();
      await scheduled.close();
    }
  }, 60_000);
});
