import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { DAEMON_ENTRY, startDaemon, type Daemon } from '../../bench/support.js';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ADMIN_TOKEN, baseEnv, removeQueueKeys, uniqueDatabaseUrl, waitFor } from '../support/harness.js';

const REDIS_DB = 12;
const OWNER = 'owner@example.com';
/** How long the service holds P2's answer after creating the project: the kill comes well within it. */
const HOLD_MS = 10_000;

type Json = Record<string, any>;

/**
 * The daemon as a real process, killed with SIGKILL between the service's creating a project (P2 applied) and its
 * answer reaching crm-sync: the project exists on the service and crm-sync has stored nothing of it. Started again,
 * the action's retry finds it by its name (P5) and maps it: one project for the appointment, ever.
 */
describe("automations: a crash between P2's answer and its store makes no second project", () => {
  const service = new ServiceSim();
  const crm = new AppointmentCrmSim();
  const databaseUrl = uniqueDatabaseUrl();
  let env: Record<string, string>;
  let daemon: Daemon | undefined;
  let db: pg.Client | undefined;
  /** When the service's held answer is due: its timer must not outlive the file. */
  let heldUntil = 0;

  beforeAll(async () => {
    if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
    await Promise.all([service.start(), crm.start()]);
    env = {
      ...baseEnv(service, databaseUrl, REDIS_DB),
      ...crm.daemonEnv(),
      AUTOMATION_POLL_SECONDS: '0',
    };
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await db?.end();
    await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
    await new Promise((r) => setTimeout(r, Math.max(0, heldUntil - Date.now())));
    await Promise.all([service.stop(), crm.stop()]);
    await dropDatabase(databaseUrl);
  });

  const admin = (running: Daemon, path: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(`${running.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
  const entries = async (appointmentId: string): Promise<Json[]> =>
    (await db!.query(`SELECT status, detail, project_id FROM sync_log WHERE kind = 'create_project' AND target = $1`, [appointmentId])).rows;

  it('the daemon killed while P2 is answered: started again, the appointment has one project, mapped and associated, one entry succeeded', async () => {
    daemon = await startDaemon(env);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const saved = await admin(daemon, '/api/automations/appointment-crm', { method: 'PUT', json: { create_projects: true, statuses: ['Sold'], owner: OWNER } });
    expect(saved.status).toBe(200);

    const appointmentId = '9007199254740993123';
    crm.addAppointment(appointmentId, { status: 'Sold', customer: { name: 'Kill Switch' } } as never);
    // P2 is applied (the project exists), then its answer is held: the kill lands before crm-sync can store it.
    service.injectFault({ method: 'POST', path: '/v1/projects', times: 1, afterHandling: true, delayMs: HOLD_MS });
    const run = await admin(daemon, '/api/automations/appointment-crm/run', { method: 'POST' });
    expect(run.status).toBe(202);

    const p2 = await waitFor(() => service.requestsTo('POST', '/v1/projects')[0], 30_000, 'P2');
    heldUntil = p2.at + HOLD_MS + 100;
    const projects = () => [...service.projects.values()].filter((p) => p.name === `Kill Switch (${appointmentId})`);
    await waitFor(() => projects().length === 1, 5_000, 'the project on the service');
    await daemon.stop('SIGKILL');
    expect(await entries(appointmentId)).toEqual([expect.objectContaining({ status: 'running', project_id: null })]);
    expect((await db.query(`SELECT count(*)::int AS n FROM mapping WHERE appointment_id = $1`, [appointmentId])).rows[0].n).toBe(0);

    daemon = await startDaemon(env);
    const [entry] = await waitFor(
      async () => {
        const found = await entries(appointmentId);
        return ['succeeded', 'failed'].includes(found[0]?.status) ? found : null;
      },
      60_000,
      'the create_project entry to end',
    );
    const [project] = projects();
    expect(projects()).toHaveLength(1);
    expect(entry).toMatchObject({ status: 'succeeded', project_id: project.id });
    expect(entry.detail).toContain('found by its name');
    expect(await entries(appointmentId)).toHaveLength(1);
    expect(service.requestsTo('POST', '/v1/projects')).toHaveLength(1);

    await waitFor(() => service.appointmentAssociations.get(project.id) === appointmentId, 30_000, 'the association');
    // The service records the association when A2 arrives; the daemon marks the mapping once A2's answer is back.
    const mappings = await waitFor(
      async () => {
        const items = ((await (await admin(daemon!, '/api/mappings?crm=appointment')).json()) as Json).items as Json[];
        const mine = items.filter((m) => m.appointment_id === appointmentId);
        return mine.every((m) => m.status !== 'pending') ? mine : null;
      },
      30_000,
      'the mapping marked after the association',
    );
    expect(mappings).toEqual([expect.objectContaining({ project_id: project.id, source: 'automation', status: 'associated' })]);
  }, 240_000); // two starts of the daemon, each up to startDaemon's 90 s on a loaded machine
});
