import { Redis } from 'ioredis';
import { createConnection } from 'node:net';
import { dropDatabase, ensureDatabase } from '../src/database/ensure-database.js';
import { ServiceSim, WebhookSender, appointmentPrompt, events, recordPrompt } from '../sim/service/index.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { ZohoSim } from '../sim/zoho/zoho-sim.js';
import { startDaemon } from '../bench/support.js';

/**
 * `npm run demo`: the built daemon against the three simulators (the service, an appointment CRM, Zoho CRM) on
 * this machine, with a mapped project of each kind and a few signed webhooks, then left running so you can look
 * around the dashboard and the API.
 *
 * Every run starts from nothing, so it shows the same result however often it runs: the simulators start empty, so
 * the daemon's state must too (mappings left by an earlier run would point at appointments the new simulators do not
 * know). The demo has a database of its own, `crm_sync_demo`, dropped and created again at each start, and a Redis
 * db index and queue prefix of its own, whose keys are removed at each start. Needs the local Postgres and Redis
 * (`DEMO_PG_URL`, default postgres://postgres@127.0.0.1:5432; `DEMO_REDIS_URL`, default redis://127.0.0.1:6379).
 * The reconciliation schedule is off, so that no run starts at a moment that differs from one demo to the next; the
 * demo starts one itself at the end, to show that replaying what was pushed changes nothing.
 */
const ADMIN_TOKEN = 'demo-admin-token-not-secret';
const SECRETS = { events: 'demo-events', appointment: 'demo-appointment-prompt', record: 'demo-record-prompt' };
const PORT = Number(process.env.PORT ?? 3000);
const DATABASE_URL = `${(process.env.DEMO_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '')}/crm_sync_demo`;
/** No test or bench uses this db index. */
const REDIS_URL = `${(process.env.DEMO_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/+$/, '')}/14`;
const QUEUE_PREFIX = 'crm-sync-demo';
const SETTLE_TIMEOUT_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Entry {
  id: string;
  kind: string;
  status: string;
  crm: string | null;
  target: string | null;
  detail: string | null;
  error: string | null;
}

if (await portTaken(PORT)) {
  console.error(`Port ${PORT} is in use (a demo still running?). Stop it, or run with PORT=<another port>.`);
  process.exit(1);
}

// A clean slate: the demo's own database and queue keys, nothing else.
await dropDatabase(DATABASE_URL);
await ensureDatabase(DATABASE_URL);
await removeKeys(REDIS_URL, `${QUEUE_PREFIX}:*`);

const service = new ServiceSim();
const appointments = new AppointmentCrmSim();
const zoho = new ZohoSim();
await Promise.all([service.start(), appointments.start(), zoho.start()]);
service.addTemplate('Standard proposal');

const daemon = await startDaemon({
  PORT: String(PORT),
  DATABASE_URL,
  REDIS_URL,
  QUEUE_PREFIX,
  ...service.daemonEnv(),
  WEBHOOK_SECRETS_EVENTS: SECRETS.events,
  WEBHOOK_SECRETS_APPOINTMENT_PROMPT: SECRETS.appointment,
  WEBHOOK_SECRETS_RECORD_PROMPT: SECRETS.record,
  DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'true',
  ADMIN_TOKEN,
  ...appointments.daemonEnv(),
  ...zoho.daemonEnv(),
  RECONCILE_INTERVAL_SECONDS: '0',
  DRAWINGS_COALESCE_MS: '500',
  LOG_LEVEL: 'warn',
});

// Whatever way the demo ends, the daemon ends with it (stop() below is the graceful way).
process.once('exit', () => daemon.process.kill('SIGKILL'));
const stop = async () => {
  await daemon.stop();
  await Promise.all([service.stop(), appointments.stop(), zoho.stop()]);
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

const admin = (path: string, body?: unknown) =>
  fetch(`${daemon.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
const syncLog = async () => ((await admin('/api/sync-logs?limit=500')) as { items: Entry[] }).items;

// A project sold through the appointment CRM, and one tracked as a Zoho deal.
const kitchen = service.addProject({ name: 'Kitchen remodel, 12 Elm St' });
const kitchenDrawing = service.addDrawing(kitchen.id, { name: 'Kitchen plan' });
const appointmentId = 'APT-1001';
appointments.addAppointment(appointmentId);
const roof = service.addProject({ name: 'Roof replacement, 4 Oak Ave' });
const roofDrawing = service.addDrawing(roof.id, { name: 'Roof plan' });
const dealId = zoho.addRecord('Deals');
await admin('/api/mappings', {
  items: [
    { crm: 'appointment', appointment_id: appointmentId, project_id: kitchen.id },
    { crm: 'record', record_crm_module: 'Deals', record_crm_record_id: dealId, project_id: roof.id },
  ],
});
await admin('/api/mappings/associate', {});
await settled(async () => (await syncLog()).filter((e) => e.kind === 'associate').length === 2);

// Each webhook's pushes are awaited before the next is sent, so that the log reads in the same order every time.
const sender = new WebhookSender();
const post = (path: string, body: object, secret: string) => sender.deliverOnce(`${daemon.url}${path}`, body, { secret });
await post('/webhooks/events', events.drawingCreated(service.drawingView(kitchenDrawing.id)), SECRETS.events);
await settled(() => appointments.filesOf(appointmentId, 'drawing').length > 0);
await post(
  '/webhooks/appointment-crm/export-prompt',
  appointmentPrompt({ project_id: kitchen.id, drawing_id: kitchenDrawing.id, appointment_id: appointmentId, yes_no: true }),
  SECRETS.appointment,
);
await settled(() => appointments.get(appointmentId)?.status === 'Sold');
await post(
  '/webhooks/record-crm/export-prompt',
  recordPrompt({ drawing_id: roofDrawing.id, record_crm_module: 'Deals', record_crm_record_id: dealId, yes_no: true }),
  SECRETS.record,
);
await settled(() => zoho.attachmentsOf('Deals', dealId).length === 1);
const proposal = service.addProposal({ project_id: roof.id, status: 'APPROVED', approved_option: { drawing_id: roofDrawing.id } });
await post('/webhooks/events', events.proposalStatusChanged(proposal), SECRETS.events);
await settled(() => zoho.attachmentsOf('Deals', dealId).length === 2);
const payment = service.addPayment(proposal.proposal_id, {
  paid_amount: 4250,
  pay_channel: 'service_payment',
  paid_time: new Date().toISOString(),
  payment_method: 'ACH',
  status: 'succeeded',
});
await post('/webhooks/events', events.paymentReceived(proposal.proposal_id, roofDrawing.id, payment), SECRETS.events);
await settled(() => zoho.notesOf('Deals', dealId).length === 1);

// Reconciliation replays the approval and the payment and compares the drawings: everything is there already.
await admin('/api/reconcile', {});
await settled(async () => (await syncLog()).some((e) => e.kind === 'reconcile' && e.status !== 'queued' && e.status !== 'running'));

const log = (await syncLog()).reverse();
console.log('\nSync log (oldest first):');
for (const e of log) {
  console.log(
    `  #${e.id.padEnd(3)} ${e.kind.padEnd(18)} ${e.status.padEnd(10)} ${(e.crm ?? '').padEnd(12)} ${(e.target ?? '').padEnd(30)} ${e.detail ?? e.error ?? ''}`,
  );
}
const appointment = appointments.get(appointmentId)!;
const sale = appointment.sale as { items: unknown[]; total: number } | null;
console.log(
  `\nAppointment ${appointmentId}: status ${appointment.status}; files ${appointment.files.map((f) => `${f.category}:${f.name}`).join(', ')}; sale ${sale ? `${sale.items.length} item(s), total ${sale.total}` : 'none'}`,
);
console.log(
  `Zoho deal ${dealId}: attachments ${zoho
    .attachmentsOf('Deals', dealId)
    .map((a) => a.fileName)
    .join(', ')}; notes ${zoho.notesOf('Deals', dealId).length}`,
);
const failed = log.filter((e) => e.status === 'failed').length;
console.log(failed === 0 ? '\nNo failed entries.' : `\n${failed} failed entr${failed === 1 ? 'y' : 'ies'}: see the dashboard.`);
console.log(`\nDashboard: ${daemon.url}/admin (token: ${ADMIN_TOKEN})   API docs: ${daemon.url}/docs   Ctrl-C stops the demo.`);

/**
 * Waits until `done` holds and nothing is left to run (no entry queued or running, twice in a row: a chain records its
 * next link just after the previous one finished). A failed entry ends the wait too (`done` may never hold then), and
 * so does the time-out; the log printed at the end shows what went wrong.
 */
async function settled(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let quiet = 0;
  while (Date.now() < deadline) {
    const entries = await syncLog();
    const busy = entries.some((e) => e.status === 'queued' || e.status === 'running');
    const failed = entries.some((e) => e.status === 'failed');
    quiet = !busy && (failed || (await done())) ? quiet + 1 : 0;
    if (quiet >= 2) return;
    await sleep(250);
  }
  console.warn(`\n(still busy after ${SETTLE_TIMEOUT_MS / 1000} s; showing the log as it is)`);
}

async function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Removes the keys matching `pattern` in the db `redisUrl` names. */
async function removeKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
