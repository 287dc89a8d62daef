import { Redis } from 'ioredis';
import { createConnection } from 'node:net';
import { dropDatabase, ensureDatabase } from '../src/database/ensure-database.js';
import { ServiceSim, WebhookSender, appointmentPrompt, events, recordPrompt } from '../sim/service/index.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { ZohoSim } from '../sim/zoho/zoho-sim.js';
import { startDaemon } from '../bench/support.js';

/**
 * `npm run demo`: the built daemon against the three simulators (the service, an appointment CRM, Zoho CRM) on this
 * machine, taken through what crm-sync is for, then left running so you can look around the console and the API:
 *
 * 1. both automations turned on (appointments Scheduled; Zoho Deals at Qualification or Needs Analysis), with
 *    suggestions by e-mail, the Deal's stage and amount on approval, and line items as a Quote;
 * 2. a new appointment and a new Deal at a qualifying stage read and made projects, mapped and associated (a Deal at
 *    another stage is read and left alone);
 * 3. the appointment's project: its drawing pushed, its proposal exported, approved: the sale and the status Sold;
 * 4. the Deal's project: its proposal exported, approved: the Deal's Amount and Stage, a Quote with the drawing's
 *    line items, and a payment's note;
 * 5. a project made by hand in the service waits as a suggestion (an appointment with its customer's e-mail);
 * 6. people change the revenue afterwards (the Deal's Amount and Stage, the appointment's status): the revenue check
 *    shows the drifts.
 *
 * It prints what happened and the console address of each screen to look at. Every record has a name.
 *
 * Every run starts from nothing, so it shows the same result however often it runs: the simulators start empty, so
 * the daemon's state must too (mappings left by an earlier run would point at appointments the new simulators do not
 * know). The demo has a database of its own, `crm_sync_demo`, dropped and created again at each start, and a Redis
 * db index and queue prefix of its own, whose keys are removed at each start. `DEMO_NAME` (default `demo`) names
 * them, so that another run (the screenshots' run, `screenshots`) never drops the database of a demo left running. Needs the local Postgres and Redis
 * (`DEMO_PG_URL`, default postgres://postgres@127.0.0.1:5432; `DEMO_REDIS_URL`, default redis://127.0.0.1:6379).
 * The schedules are off (reconciliation, the automations' reads): the demo reads the CRMs itself, one at a time, so
 * that every id is the same from one run to the next. `DEMO_EXIT=1` stops it once the tour is printed (the
 * screenshots' script runs it so).
 */
const ADMIN_TOKEN = 'demo-admin-token-not-secret';
const SECRETS = { events: 'demo-events', appointment: 'demo-appointment-prompt', record: 'demo-record-prompt' };
const PORT = Number(process.env.PORT ?? 3000);
const NAME = process.env.DEMO_NAME ?? 'demo';
if (!/^[a-z][a-z0-9_]{0,30}$/.test(NAME)) {
  console.error(`DEMO_NAME must be lower-case letters, digits and _ (a database name's part), not ${JSON.stringify(NAME)}.`);
  process.exit(1);
}
const DATABASE_URL = `${(process.env.DEMO_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '')}/crm_sync_${NAME}`;
/** No test or bench uses this db index. */
const REDIS_URL = `${(process.env.DEMO_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/+$/, '')}/14`;
const QUEUE_PREFIX = `crm-sync-${NAME}`;
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
  AUTOMATION_POLL_SECONDS: '0',
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

const put = (path: string, body: unknown) =>
  fetch(`${daemon.url}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`PUT ${path} answered ${r.status}: ${await r.text()}`);
  });
const sender = new WebhookSender();
const post = (path: string, body: object, secret: string) => sender.deliverOnce(`${daemon.url}${path}`, body, { secret });

// The products a drawing prices, in the service and (by the same code) in Zoho; labour has no product of its own.
service.addProduct({ name: 'Cedar fence panel', sku: 'FEN-6' });
service.addProduct({ name: 'Walk gate', sku: 'GATE-4' });
zoho.revenue.addProduct('Cedar fence panel', 'FEN-6');
zoho.revenue.addProduct('Walk gate', 'GATE-4');
const labour = zoho.revenue.addProduct('Installation labour', 'SVC-LAB');

// 1. Both automations on.
await put('/api/automations/appointment-crm', {
  create_projects: true,
  statuses: ['Scheduled'],
  owner: 'owner@example.com',
  match_on: ['email'],
});
await put('/api/automations/record-crm', {
  create_projects: true,
  module: 'Deals',
  field: 'Stage',
  values: ['Qualification', 'Needs Analysis'],
  owner: 'estimator@example.com',
  match_on: ['email'],
  deal_stage_on_approved: 'Closed Won',
  quote_line_items: true,
  fallback_product_id: labour,
});
// Reading starts from the moment creation was turned on: what is added from the next second on is read.
await sleep(1_100);

// 2. A new appointment and a new Deal at a qualifying stage become projects by themselves.
const appointmentId = 'APT-1001';
appointments.addAppointment(appointmentId, {
  status: 'Scheduled',
  web_url: appointments.webUrlOf(appointmentId),
  job_number: 'J-2201',
  customer: { name: 'Maria Alvarez', email: 'maria.alvarez@acme.com', phone: '512-555-0199', address: null },
  sales_rep: { name: 'Sam Reyes', email: 'sam@example.com', phone: null } as never,
});
// Another appointment, still a lead: read, not qualifying. Its customer's e-mail is the hand-made project's (5).
appointments.addAppointment('APT-1002', {
  status: 'Lead',
  web_url: appointments.webUrlOf('APT-1002'),
  customer: { name: 'Wei Chen', email: 'wei.chen@acme.com', phone: '512-555-0142', address: null },
});
const contact = zoho.addRecord('Contacts', undefined, { Full_Name: 'Dana Whitfield', Email: 'dana@acme.com', Phone: '737-555-0107' });
// A Quote needs the Deal's account (Zoho's Quotes require Account_Name); the simulator keeps no Accounts of its own.
const account = '4150868000000000777';
const dealId = zoho.addRecord('Deals', undefined, {
  Deal_Name: 'Whitfield backyard fence',
  Account_Name: { id: account, name: 'Whitfield household' },
  Stage: 'Qualification',
  Contact_Name: { id: contact, name: 'Dana Whitfield' },
});
zoho.addRecord('Deals', undefined, { Deal_Name: 'Old porch quote', Stage: 'Closed Lost' });

await admin('/api/automations/appointment-crm/run', {});
await settled(async () => (await syncLog()).some((e) => e.kind === 'associate_automated' && e.crm === 'appointment' && e.status === 'succeeded'));
await admin('/api/automations/record-crm/run', {});
await settled(async () => (await syncLog()).some((e) => e.kind === 'associate_automated' && e.crm === 'record' && e.status === 'succeeded'));
const mappings = ((await admin('/api/mappings?limit=50')) as { items: Array<Record<string, string>> }).items;
const kitchenId = mappings.find((m) => m.appointment_id === appointmentId)?.project_id;
const fenceId = mappings.find((m) => m.record_crm_record_id === dealId)?.project_id;
if (!kitchenId || !fenceId) {
  console.error('The automations made no project (see the sync log):', JSON.stringify(mappings));
  process.exit(1);
}

// 3. The appointment's project: a drawing pushed, the proposal exported, then approved (the sale, then Sold). Each
// webhook's work is awaited before the next is sent, so that the log reads in the same order every time.
const kitchenDrawing = service.addDrawing(kitchenId, { name: 'Kitchen plan' });
await post('/webhooks/events', events.drawingCreated(service.drawingView(kitchenDrawing.id)), SECRETS.events);
await settled(() => appointments.filesOf(appointmentId, 'drawing').length > 0);
await post(
  '/webhooks/appointment-crm/export-prompt',
  appointmentPrompt({ project_id: kitchenId, drawing_id: kitchenDrawing.id, appointment_id: appointmentId, yes_no: true }),
  SECRETS.appointment,
);
await settled(async () => (await syncLog()).some((e) => e.kind === 'push_proposal_pdf' && e.status === 'succeeded'));
const kitchenProposal = service.addProposal({ project_id: kitchenId, status: 'APPROVED', approved_option: { drawing_id: kitchenDrawing.id } });
await post('/webhooks/events', events.proposalStatusChanged(kitchenProposal), SECRETS.events);
await settled(() => appointments.get(appointmentId)?.status === 'Sold');

// 4. The Deal's project: the proposal exported to the Deal, approved (Amount, Stage, the Quote), a payment.
const fenceDrawing = service.addDrawing(fenceId, { name: 'Backyard fence plan' });
await post(
  '/webhooks/record-crm/export-prompt',
  recordPrompt({ drawing_id: fenceDrawing.id, record_crm_module: 'Deals', record_crm_record_id: dealId, yes_no: true }),
  SECRETS.record,
);
await settled(() => zoho.attachmentsOf('Deals', dealId).length === 1);
const fenceProposal = service.addProposal({ project_id: fenceId, status: 'APPROVED', approved_option: { drawing_id: fenceDrawing.id } });
await post('/webhooks/events', events.proposalStatusChanged(fenceProposal), SECRETS.events);
await settled(async () => (await syncLog()).some((e) => e.kind === 'update_deal' && e.status === 'succeeded'));
const payment = service.addPayment(fenceProposal.proposal_id, {
  paid_amount: 300,
  pay_channel: 'service_payment',
  paid_time: new Date().toISOString(),
  payment_method: 'ACH',
  status: 'succeeded',
});
await post('/webhooks/events', events.paymentReceived(fenceProposal.proposal_id, fenceDrawing.id, payment), SECRETS.events);
await settled(() => zoho.notesOf('Deals', dealId).length === 1);

// 5. A project made by hand in the service: the appointment with its customer's e-mail is suggested, not mapped.
const sunroom = service.addProject({ name: 'Chen sunroom', customer: { name: 'Wei Chen', email: 'wei.chen@acme.com' } });
await post('/webhooks/events', events.projectCreated(sunroom), SECRETS.events);
await settled(async () => ((await admin('/api/suggestions')) as { items: unknown[] }).items.length > 0);

// 6. People change revenue after crm-sync wrote it: a rep lowers the Deal's Amount and moves its Stage back; someone
// sets the appointment back to Confirmed. A full pass of the revenue check finds both, side by side with the service.
zoho.revenue.editByHand('Deals', dealId, { Amount: 1899, Stage: 'Negotiation/Review' });
appointments.personEdits(appointmentId, { status: 'Confirmed' }, 'Jordan Lee');
const check = (await admin('/api/revenue/check', { scope: 'full' })) as { id: string };
await settled(async () => (await syncLog()).some((e) => e.id === check.id && e.status === 'succeeded'));

// The tour.
const log = await syncLog();
const failed = log.filter((e) => e.status === 'failed');
const deal = zoho.revenue.fieldsOf('Deals', dealId);
const [quote] = zoho.revenue.quotesOfDeal(dealId);
const sale = appointments.get(appointmentId)!.sale as { items: unknown[]; total: number } | null;
const at = (hash: string) => `${daemon.url}/admin#${hash}`;
console.log(`
What happened (${log.length} actions in the sync log, ${failed.length} failed):
  1. Both automations are on: appointments with status Scheduled, and Zoho Deals at Qualification or Needs Analysis,
     become projects in the service by themselves.
  2. Appointment ${appointmentId} (Maria Alvarez) became project "${service.projects.get(kitchenId)!.name}" (${kitchenId});
     Deal "Whitfield backyard fence" (${dealId}) became project "${service.projects.get(fenceId)!.name}" (${fenceId}).
     APT-1002 (a lead) and the Deal "Old porch quote" (Closed Lost) were read and did not qualify.
  3. Maria Alvarez's appointment got the drawing and the proposal, then, approved, the sale (${sale ? `${sale.items.length} items, total ${sale.total}` : 'none'})
     and the status ${appointments.get(appointmentId)!.status}.
  4. The Deal got the proposal; approved, its Amount ${String(deal.Amount)} and Stage ${String(deal.Stage)}, and Quote ${quote ? `${quote.id} with ${(quote.fields.Quoted_Items as unknown[]).length} line items` : '(none)'};
     then a note of the payment of 300.
  5. "Chen sunroom", made by hand in the service, waits as a suggestion: appointment APT-1002 has its customer's e-mail.
  6. A rep lowered the Deal's Amount and moved its Stage back, and the appointment was set back to Confirmed: the
     revenue check shows each drift beside what the service approved, to heal or accept.

Look at (sign in with the token ${ADMIN_TOKEN}):
  The funnel, from CRM record to sale   ${at('overview')}
  Revenue: drifts to heal or accept     ${at('revenue')}
  Maria Alvarez's project               ${at(`project/${kitchenId}`)}
  Dana Whitfield's project (the Deal)   ${at(`project/${fenceId}`)}
  The suggestion to accept              ${at('suggestions')}
  The mappings, by name                 ${at('mappings')}
  The automations' settings             ${at('automations')}
  The sync log                          ${at('logs')}
  API docs                              ${daemon.url}/docs
${failed.length ? `\n${failed.length} failed: ${failed.map((e) => `#${e.id} ${e.kind} ${e.error ?? ''}`).join('; ')}\n` : ''}`);
if (process.env.DEMO_EXIT === '1') await stop();
console.log('Ctrl-C stops the demo.');

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
