import { Redis } from 'ioredis';
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { actionJobId, QUEUES } from '../../src/queues/queues.js';
import { DAEMON_ENTRY, startDaemon, type Daemon } from '../../bench/support.js';
import { SalesforceSim } from '../../sim/salesforce/index.js';
import { appointmentPrompt, events, WebhookSender } from '../../sim/service/index.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { APPOINTMENT_PROMPT_SECRET, baseEnv, EVENTS_SECRET, REDIS_BASE, removeQueueKeys, uniqueDatabaseUrl, waitFor } from '../support/harness.js';

const REDIS_DB = 13;
const APPOINTMENT = 'i360__Appointment__c';
/** A wait, not a promise: on a loaded 2-core machine the built daemon has taken over 30 s to be ready. */
const START_MS = 90_000;
/** How long the org holds the drawing's first upload: the kill lands within it, and the upload still lands after. */
const HOLD_MS = 3_000;
const FINISHED = ['succeeded', 'failed', 'skipped'];

/**
 * Two replicas of the built daemon (child processes) on one database and queue prefix, the appointment CRM an improveit
 * 360 org on the Salesforce simulator with crm-sync pushing. A drawing and an approved proposal are pushed while the
 * org loses an upload's answer and answers the sale's composite call with a 503, and the replica running the drawing
 * push is SIGKILLed mid-upload: the org ends with one drawing file, one proposal file, one sale with its items and the
 * appointment Sold.
 */
describe('the appointment CRM on Salesforce, crm-sync pushing: exactly once through faults and a replica crash', () => {
  const service = new ServiceSim();
  const sim = new SalesforceSim();
  const sender = new WebhookSender();
  const databaseUrl = uniqueDatabaseUrl();
  let env: Record<string, string>;
  let daemons: Daemon[] = [];
  let db: pg.Client | undefined;
  let redis: Redis | undefined;
  /** When the org's held answer is due: its timer must not outlive the file. */
  let heldUntil = 0;

  beforeAll(
    async () => {
      if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
      await Promise.all([service.start(), sim.start()]);
      service.addTemplate('Standard');
      env = {
        ...baseEnv(service, databaseUrl, REDIS_DB),
        ...sim.daemonEnv(),
        APPOINTMENT_CRM_PUSHES: 'crm-sync',
        // A retried job runs again within a second, not after the default 5 s backoff.
        JOB_BACKOFF_BASE_MS: '200',
      };
      // The first start creates the database and migrates it; the second replica then joins a ready one.
      daemons = [await startDaemon(env, { timeoutMs: START_MS })];
      daemons.push(await startDaemon(env, { timeoutMs: START_MS }));
      db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      redis = new Redis(`${REDIS_BASE}/${REDIS_DB}`, { maxRetriesPerRequest: 1 });
    },
    2 * START_MS + 30_000,
  );

  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
    await db?.end();
    redis?.disconnect();
    if (env) await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
    await new Promise((r) => setTimeout(r, Math.max(0, heldUntil - Date.now())));
    await Promise.all([service.stop(), sim.stop()]);
    await dropDatabase(databaseUrl);
  });

  const appointmentEntries = async (projectId: string) =>
    (
      await db!.query<{ id: string; kind: string; status: string }>(
        `SELECT id, kind, status FROM sync_log WHERE project_id = $1 AND crm = 'appointment' ORDER BY id`,
        [projectId],
      )
    ).rows;

  /** The replica whose worker took the entry's job (`processedBy` is `<host>:<pid>`). */
  async function runnerOf(entryId: string): Promise<Daemon> {
    const processedBy = await redis!.hget(`${env.QUEUE_PREFIX}:${QUEUES.appointmentCrm}:${actionJobId(entryId)}`, 'pb');
    const runner = daemons.find((d) => processedBy?.endsWith(`:${d.process.pid}`));
    if (!runner) throw new Error(`no replica named ${processedBy}`);
    return runner;
  }

  it(
    'a drawing and an approved proposal, an upload answer lost, a 503 on composite, the drawing push’s replica killed: each arrives once, Sold',
    async () => {
      const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Kit Crash', i360__Primary_Last_Name__c: 'Crash' });
      const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect, i360__Result__c: null });
      const project = service.addProject();
      const drawing = service.addDrawing(project.id);
      await db!.query(`INSERT INTO mapping (crm, appointment_id, project_id, status) VALUES ('appointment', $1, $2, 'associated')`, [
        appointmentId,
        project.id,
      ]);
      const uploads = () => sim.instance.requestsTo('POST', /\/sobjects\/ContentVersion$/);

      // The drawing's first upload is held by the org (and stored when the hold ends): the replica running it is killed.
      sim.instance.injectFault({ method: 'POST', path: /\/sobjects\/ContentVersion$/, times: 1, delayMs: HOLD_MS });
      const drawingEvent = await sender.deliverOnce(`${daemons[0].url}/webhooks/events`, events.drawingCreated(service.drawingView(drawing.id)), {
        secret: EVENTS_SECRET,
      });
      expect(drawingEvent.status).toBe(200);
      const held = await waitFor(() => uploads()[0], 20_000, 'the held drawing upload');
      heldUntil = held.at + HOLD_MS + 100;

      // The next upload is stored but its answer lost; the sale's first composite call meets a 503.
      sim.instance.injectFault({ method: 'POST', path: /\/sobjects\/ContentVersion$/, times: 1, afterHandling: true, dropConnection: true });
      sim.instance.injectFault({
        method: 'POST',
        path: /\/composite\/sobjects$/,
        times: 1,
        status: 503,
        body: [{ errorCode: 'SERVER_UNAVAILABLE', message: 'down' }],
      });
      // The proposal approved on the other replica's webhook while the drawing push is still in flight.
      const prompt = await sender.deliverOnce(
        `${daemons[1].url}/webhooks/appointment-crm/export-prompt`,
        appointmentPrompt({ project_id: project.id, drawing_id: drawing.id, appointment_id: appointmentId, yes_no: true }),
        { secret: APPOINTMENT_PROMPT_SECRET },
      );
      expect(prompt.status).toBe(200);

      const [drawingPush] = (await appointmentEntries(project.id)).filter((e) => e.kind === 'push_drawings');
      expect(drawingPush).toBeDefined();
      const runner = await runnerOf(drawingPush.id);
      expect(uploads().length).toBe(1); // still held: the kill comes before the org answers
      await runner.stop('SIGKILL');
      daemons = daemons.filter((d) => d !== runner);

      // Every push of the project ended (the killed one resumed on the other replica once its lock lapsed).
      const entries = await waitFor(
        async () => {
          const found = await appointmentEntries(project.id);
          const kinds = ['push_drawings', 'push_proposal_pdf', 'push_line_items', 'set_status'];
          return kinds.every((k) => found.some((e) => e.kind === k)) && found.every((e) => FINISHED.includes(e.status)) ? found : null;
        },
        90_000,
        'every push of the project to end',
      );
      expect(entries.filter((e) => e.kind !== 'admin_write' && e.status !== 'succeeded')).toEqual([]);
      await waitFor(() => Date.now() >= heldUntil || null, HOLD_MS + 1_000, "the held upload's end");

      // The org's state: one file per category, one sale with the drawing's items, the appointment Sold.
      const files = sim.filesOf(appointmentId);
      const proposalFiles = files.filter((f) => f.pathOnClient === `proposal-${drawing.id}.pdf`);
      const drawingFiles = files.filter((f) => !f.pathOnClient.startsWith('proposal-'));
      expect(proposalFiles).toHaveLength(1);
      expect(drawingFiles).toHaveLength(1);
      expect(files).toHaveLength(2);
      const sales = sim.rows('i360__Sale__c').filter((s) => s.i360__Appointment__c === appointmentId);
      expect(sales).toHaveLength(1);
      const lineItems = service.drawings.get(drawing.id)!.lineItems;
      const items = sim.rows('i360__Sale_Item__c').filter((i) => i.i360__Sale__c === sales[0].Id);
      expect(items.map((i) => i.i360__Quantity__c)).toEqual(lineItems.line_items.map((i) => i.quantity));
      expect(sales[0].i360__Sold_Price__c).toBe(lineItems.total);
      expect(sim.row(APPOINTMENT, appointmentId)!.i360__Result__c).toBe('Sold');

      // The faults and the kill struck: the held upload, the lost answer's upload and their repeats; two composite calls.
      expect(uploads().length).toBeGreaterThanOrEqual(4);
      expect(sim.instance.requestsTo('POST', /\/composite\/sobjects$/).length).toBeGreaterThanOrEqual(2);
      const { rows } = await db!.query<{ attempts: number }>(`SELECT attempts FROM sync_log WHERE id = $1`, [drawingPush.id]);
      expect(rows[0].attempts).toBeGreaterThanOrEqual(2);
    },
    2 * 90_000,
  );
});
