import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { DAEMON_ENTRY, startDaemon, type Daemon } from '../../bench/support.js';
import { events, WebhookSender } from '../../sim/service/index.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ZohoSim } from '../../sim/zoho/zoho-sim.js';
import { baseEnv, EVENTS_SECRET, removeQueueKeys, uniqueDatabaseUrl, waitFor } from '../support/harness.js';

const REDIS_DB = 4;

/**
 * The daemon as a real process, killed with SIGKILL right after it answered 200 and while it was routing the
 * delivery; its Redis keys (all under its queue prefix) are deleted while it is down, as a flushed Redis would lose
 * them, leaving the db index's other users alone. Started again, it must push exactly once.
 */
describe('a crash after the 200 loses nothing and pushes once', () => {
  const service = new ServiceSim();
  const zoho = new ZohoSim();
  const databaseUrl = uniqueDatabaseUrl();
  let env: Record<string, string>;
  let daemon: Daemon | undefined;

  beforeAll(async () => {
    if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
    await Promise.all([service.start(), zoho.start()]);
    env = {
      ...baseEnv(service, databaseUrl, REDIS_DB),
      ...zoho.daemonEnv(),
    };
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
    await Promise.all([service.stop(), zoho.stop()]);
    await dropDatabase(databaseUrl);
  });

  it('routes and pushes the delivery exactly once after a SIGKILL and a flushed Redis', async () => {
    daemon = await startDaemon(env);
    const project = service.addProject();
    const drawing = service.addDrawing(project.id);
    const recordId = zoho.addRecord('Deals');
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO mapping (crm, record_crm_module, record_crm_record_id, project_id, status) VALUES ('record', 'Deals', $1, $2, 'associated')`, [
      recordId,
      project.id,
    ]);

    // Routing a payment reads its drawing (D1); holding that answer keeps the delivery mid-routing when the kill comes.
    const drawingPath = `/v1/drawings/${drawing.id}`;
    service.injectFault({ method: 'GET', path: drawingPath, times: 1, delayMs: 5_000 });
    const payment = events.paymentReceived('36029621652699999', drawing.id, {
      paid_amount: 250.5,
      pay_channel: 'mark_as_paid',
      paid_date: '2026-11-20',
      payment_method: 'Check',
      status: 'succeeded',
    });
    const answer = await new WebhookSender().deliverOnce(`${daemon.url}/webhooks/events`, payment, { secret: EVENTS_SECRET });
    expect(answer).toMatchObject({ status: 200 });
    expect(JSON.parse(answer.body)).toEqual({ status: 'accepted' });
    await waitFor(() => service.requestsTo('GET', drawingPath).length > 0, 10_000, 'routing to start');

    await daemon.stop('SIGKILL');
    await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
    expect(zoho.notesOf('Deals', recordId)).toHaveLength(0);

    daemon = await startDaemon(env);
    const notes = await waitFor(() => (zoho.notesOf('Deals', recordId).length > 0 ? zoho.notesOf('Deals', recordId) : null), 60_000, 'the payment note');
    expect(notes[0].content).toContain('250.50');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(zoho.notesOf('Deals', recordId)).toHaveLength(1);

    const { rows: inbox } = await db.query(`SELECT status FROM webhook_inbox WHERE event = 'proposal.payment.received'`);
    expect(inbox).toEqual([{ status: 'routed' }]);
    const { rows: entries } = await db.query(`SELECT kind, status FROM sync_log WHERE kind = 'add_note'`);
    expect(entries).toEqual([{ kind: 'add_note', status: 'succeeded' }]);
    await db.end();
  }, 240_000); // two starts of the daemon, each up to startDaemon's 90 s on a loaded machine
});
