/**
 * Soak test: three replicas of the built daemon, a Postgres cluster and a Redis of the soak's own, the simulators
 * with faults, realistic traffic for SOAK_SECONDS (default 300), crashes and outages at random moments; then it lets
 * everything settle and checks the invariants (see docs/guarantees.md). Exit code 1 names each invariant that failed.
 * Both CRMs' automations are on: appointments and Deals appear and are edited during the faults, and each one that
 * qualified must end with exactly one project. Revenue is on too (line items as Quotes, with a fallback product): an
 * approved proposal of a Deal-mapped project must end as the Deal's Amount and Stage, and as exactly one Quote.
 *
 *   npm run soak                      SOAK_SECONDS=60 npm run soak:ci
 *
 * Knobs: SOAK_SECONDS, SOAK_SEED (the random choices; printed), SOAK_SETTLE_SECONDS (deadline of the settling, 300),
 * SOAK_KEEP=1 (keep the temporary folder with the replicas' and Postgres' logs).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { toJson, type Fault, type SimServer } from '../sim/common/sim-server.js';
import { ServiceSim, WebhookSender, appointmentPrompt, events, recordPrompt } from '../sim/service/index.js';
import type { LineItemsResult, Proposal } from '../sim/service/types.js';
import { ZohoSim, type ZohoModule } from '../sim/zoho/zoho-sim.js';
import { PgCluster, RedisServer, stopClusterNow } from './soak-infra.js';
import { freePort, startDaemon, type Daemon } from './support.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SETTLE_MS = Number(process.env.SOAK_SETTLE_SECONDS ?? 300) * 1000;
const SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 1e9));
const KEEP = process.env.SOAK_KEEP === '1';
/** The service's retry schedule and the daemon's job backoff run 30 times faster than in production. */
const TIME_SCALE = 1 / 30;
const REPLICAS = 3;
const HTTP_TIMEOUT_MS = 2_000;
const UPLOAD_TIMEOUT_MS = 5_000;
const ADMIN_TOKEN = 'soak-admin-token-not-secret';
const SECRETS = { events: 'soak-events', appointment: 'soak-appointment-prompt', record: 'soak-record-prompt' };
/** Random faults per second injected into each CRM while the soak runs. */
const FAULTS_PER_SECOND = 0.6;
const MAX_PROJECTS = 40;
/** Appointments the automation reads (some never qualify); the status that qualifies them. */
const MAX_AUTOMATED = 60;
const QUALIFYING_STATUS = 'Confirmed';
/** The Deal stage that qualifies a Deal for the Zoho automation. */
const QUALIFYING_STAGE = 'Contract Signed';
/** The stage an approval moves a Deal to (the setting's default), and the stage the soak's mapped Deals start at. */
const WON_STAGE = 'Closed Won';
/** The automations read the CRMs this often (production: 60 s). */
const AUTOMATION_POLL_SECONDS = 2;
const OUTAGE_BODY = { error: 'soak outage' };
/** What a failed entry's error says when one of the soak's faults caused it. */
const INJECTED_FAILURE = /HTTP (5\d\d|429)\b|failed: (timeout|network|unavailable|rate_limited)|database|postgres|redis|ECONN|socket hang up|terminat/i;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();

/** mulberry32: the soak's choices repeat with SOAK_SEED (the machine's timing does not). */
let seedState = SEED >>> 0;
function random(): number {
  seedState = (seedState + 0x6d2b79f5) >>> 0;
  let t = seedState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const chance = (p: number) => random() < p;

interface SoakProject {
  id: string;
  crm: 'appointment' | 'record';
  appointmentId?: string;
  module?: ZohoModule;
  recordId?: string;
  drawings: string[];
  proposals: Proposal[];
  /** Export prompts answered yes whose delivery was answered 2xx: projects of the appointment CRM. */
  exportedYes: boolean;
  /** Raw bodies of the record export prompts answered yes and delivered: one attachment each. */
  recordExports: Set<string>;
  /** Drawings whose record export prompt was answered yes and delivered: each has its Quote on a mapped Deal. */
  exportedDrawings: Set<string>;
}

/** The service's SKUs that Zoho has as products; the third has none (its items take the fallback product). */
const skus: string[] = [];

/**
 * A drawing's own line items for a Deal-mapped project, in awkward amounts (0.1 × n, 0.1 + 0.2, a third taken off,
 * a tax of a third, sometimes a total near a billion, an item of no Zoho product, a custom price item), distinct per
 * drawing: its Quote's Grand_Total and its proposal's total (the Deal's Amount) must equal the service's to the cent.
 */
function awkwardLineItems(n: number): LineItemsResult {
  const [a, b, c] = skus;
  const line = (sku: string, quantity: number, price: number, total: number) => ({ name: `Item ${sku}`, sku, unit: 'ea', quantity, price, cost: 0, total });
  const items = [
    line(a, 1 + (n % 4), 0.1, 0.1 * (1 + (n % 4))),
    line(b, 2, 0.2, 0.1 + 0.2 + 0.1),
    line(c, 3, 19.99 + n / 100, (19.99 + n / 100) * 3),
    { name: 'Custom labour', quantity: 3, total: 100 + n },
    ...(n % 3 === 0 ? [line(a, 1, 987654321.99, 987654321.99)] : []),
  ];
  const subtotal = items.reduce((sum, item) => sum + item.total, 0);
  const discount = -Math.round((subtotal / 3) * 100) / 100;
  const tax = 1 / 3;
  return {
    line_items: items,
    subtotal,
    discount,
    discount_description: 'a third off',
    markup: 12.34,
    markup_description: 'rush',
    taxes: [{ name: 'Sales tax', total: tax }],
    total: subtotal + discount + 12.34 + tax,
    drawing_version_id: '',
  };
}

const dealMapped = (p: SoakProject) => p.crm === 'record' && p.module === 'Deals';

/** A drawing of the service; a Deal-mapped project's has line items of its own. */
function addDrawing(p: { id: string; crm: string; module?: ZohoModule }, name: string) {
  return service.addDrawing(p.id, { name, ...(p.crm === 'record' && p.module === 'Deals' ? { lineItems: awkwardLineItems(counter) } : {}) });
}

interface Replica {
  index: number;
  port: number;
  url: string;
  daemon?: Daemon;
  log: string;
}

interface Resumption {
  kind: string;
  ms: number | null;
  /** The entries that took longer than 15 s, as they were then. */
  slow: string[];
}

/** Appointments and Deals made for the automations, by id: whether they ever qualified (one project each), never (none). */
const automated = new Map<string, { crm: 'appointment' | 'record'; qualified: boolean; cancelled: boolean }>();

const stats = {
  automationEdits: 0,
  webhooks: 0,
  delivered: 0,
  undelivered: 0,
  attempts: 0,
  adminCalls: 0,
  adminRetries: 0,
  reconciles: 0,
  crashes: {} as Record<string, number>,
};
const tmp = mkdtempSync(join(tmpdir(), 'crm-sync-soak-'));
const cluster = new PgCluster(tmp);
const redis = new RedisServer();
const service = new ServiceSim();
const appointments = new AppointmentCrmSim();
const zoho = new ZohoSim();
const sender = new WebhookSender({ timeScale: TIME_SCALE, timeoutMs: 5_000 });
const replicas: Replica[] = [];
const projects: SoakProject[] = [];
const delivered: Array<{ path: string; raw: string }> = [];
const sends = new Set<Promise<void>>();
const resumptions: Resumption[] = [];
const background = new Set<Promise<unknown>>();
const outages: Array<{ from: number; to: number; what: string }> = [];
let pool: pg.Pool | undefined;
let faultsOn = false;
let injected = 0;
let counter = 0;
let cleaned = false;

// ---- cleanup: every process and the temporary folder, whatever way the soak ends ---------------------------------

/** This process's own children by pid (Linux): a replica still starting when the soak is stopped is not in `replicas` yet. */
function killChildren(): void {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

function cleanupNow(): void {
  if (cleaned) return;
  cleaned = true;
  sender.stop();
  for (const replica of replicas) replica.daemon?.process.kill('SIGKILL');
  killChildren();
  redis.killNow();
  if (cluster.port) stopClusterNow(cluster);
  if (!KEEP) rmSync(tmp, { recursive: true, force: true });
}

async function cleanup(): Promise<void> {
  if (cleaned) return;
  sender.stop();
  await Promise.all(replicas.map((r) => r.daemon?.stop('SIGKILL')));
  killChildren();
  for (const replica of replicas) writeFileSync(join(tmp, `replica-${replica.index}.log`), replica.log + (replica.daemon?.output() ?? ''));
  await pool?.end().catch(() => undefined);
  await Promise.all([service.stop(), appointments.stop(), zoho.stop()]).catch(() => undefined);
  await redis.stop().catch(() => undefined);
  await cluster.stop('immediate').catch(() => undefined);
  cleaned = true;
  if (KEEP) console.log(`logs kept in ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

process.once('exit', cleanupNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the soak`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- the daemon's replicas -----------------------------------------------------------------------------------------

function daemonEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    DATABASE_URL: `${cluster.url}/crm_sync`,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: 'crm-sync-soak',
    ...service.daemonEnv(),
    SERVICE_API_MAX_RPS: '200',
    WEBHOOK_SECRETS_EVENTS: SECRETS.events,
    WEBHOOK_SECRETS_APPOINTMENT_PROMPT: SECRETS.appointment,
    WEBHOOK_SECRETS_RECORD_PROMPT: SECRETS.record,
    ADMIN_TOKEN,
    CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
    CONNECTIONS_KEY_FILE: join(tmp, 'connections.key'),
    ...appointments.daemonEnv(),
    ...zoho.daemonEnv(),
    RECONCILE_INTERVAL_SECONDS: '0',
    AUTOMATION_POLL_SECONDS: String(AUTOMATION_POLL_SECONDS),
    HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
    HTTP_UPLOAD_TIMEOUT_MS: String(UPLOAD_TIMEOUT_MS),
    DRAWINGS_COALESCE_MS: '300',
    JOB_BACKOFF_BASE_MS: String(Math.round(5_000 * TIME_SCALE)),
    LOG_LEVEL: 'warn',
  };
}

/** Starts (or restarts) a replica; a start that fails is tried twice more, its output kept in the replica's log. */
async function startReplica(replica: Replica): Promise<void> {
  if (replica.daemon) replica.log += replica.daemon.output();
  for (let attempt = 1; ; attempt++) {
    try {
      replica.daemon = await startDaemon(daemonEnv(replica.port), { timeoutMs: 90_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
      replica.log += `soak: start ${attempt} failed: ${(err as Error).message}\n`;
      console.log(`  replica ${replica.index} did not start (${(err as Error).message.split('\n')[0]}); trying again`);
      await sleep(5_000);
    }
  }
}

const live = () => replicas.filter((r) => r.daemon && r.daemon.process.exitCode === null && r.daemon.process.signalCode === null);

/** An admin API call to a live replica, tried again while replicas, Postgres or Redis are down. */
async function admin<T = Record<string, unknown>>(path: string, init: { method?: string; body?: string; type?: string } = {}): Promise<T> {
  stats.adminCalls++;
  let last = '';
  for (let attempt = 0; attempt < 60; attempt++) {
    const replica = pick(live().length > 0 ? live() : replicas);
    try {
      const res = await fetch(`${replica.url}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': init.type ?? 'application/json' },
        body: init.body,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (res.status < 500) {
        if (res.status >= 400) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
        return (text ? JSON.parse(text) : {}) as T;
      }
      last = `${res.status} ${text.slice(0, 200)}`;
    } catch (err) {
      if ((err as Error).message.includes(' answered ')) throw err;
      last = (err as Error).message;
    }
    await sleep(500);
  }
  throw new Error(`admin ${path} kept failing: ${last}`);
}

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await pool!.query<T>(sql, params)).rows;
    } catch (err) {
      if (attempt >= 120) throw err;
      await sleep(500);
    }
  }
}

// ---- traffic --------------------------------------------------------------------------------------------------------

/** Sends a webhook as the service does (its retry schedule, time compressed) to one replica, without waiting. */
function deliver(path: string, body: object, secret: string, onDelivered?: (raw: string) => void): void {
  const raw = toJson(body);
  const replica = pick(replicas);
  stats.webhooks++;
  const sending = sender.send(`${replica.url}${path}`, raw, { secret }).then((result) => {
    stats.attempts += result.attempts.length;
    if (!result.delivered) {
      stats.undelivered++;
      return;
    }
    stats.delivered++;
    delivered.push({ path, raw });
    onDelivered?.(raw);
  });
  sends.add(sending);
  void sending.finally(() => sends.delete(sending));
}

/** New projects of the service, mapped by a CSV import through the admin API, then associated; their first drawings sent. */
async function mapProjects(count: number): Promise<void> {
  const fresh: SoakProject[] = [];
  for (let i = 0; i < count && projects.length + fresh.length < MAX_PROJECTS; i++) {
    const project = service.addProject({ name: `Soak project ${++counter}` });
    const soak: SoakProject = {
      id: project.id,
      crm: chance(0.5) ? 'appointment' : 'record',
      drawings: [],
      proposals: [],
      exportedYes: false,
      recordExports: new Set(),
      exportedDrawings: new Set(),
    };
    if (soak.crm === 'appointment') {
      soak.appointmentId = `APT-${counter}`;
      appointments.addAppointment(soak.appointmentId);
    } else {
      soak.module = pick(['Deals', 'Quotes'] as const);
      // Zoho requires a Quote's Account_Name: a Deal's Quote takes the Deal's.
      const dealFields = {
        Deal_Name: `Soak deal ${counter}`,
        Stage: 'Qualification',
        Account_Name: { id: `4150868000000${100000 + counter}`, name: 'Soak account' },
      };
      soak.recordId = zoho.addRecord(soak.module, undefined, soak.module === 'Deals' ? dealFields : {});
    }
    soak.drawings.push(addDrawing(soak, `Plan ${counter}`).id);
    fresh.push(soak);
  }
  if (fresh.length === 0) return;
  const rows = fresh.map((p) => (p.crm === 'appointment' ? `appointment,${p.appointmentId},,,${p.id}` : `record,,${p.module},${p.recordId},${p.id}`));
  const csv = ['crm,appointment_id,record_crm_module,record_crm_record_id,project_id', ...rows].join('\n');
  const result = await admin<{ created: number }>('/api/mappings/import', { body: csv, type: 'text/csv' });
  if (result.created !== fresh.length) throw new Error(`mapping import created ${result.created} of ${fresh.length}`);
  projects.push(...fresh);
  await admin('/api/mappings/associate', { body: '{}' });
  for (const p of fresh) deliver('/webhooks/events', events.drawingCreated(service.drawingView(p.drawings[0])), SECRETS.events);
}

function uploadDrawing(): void {
  const p = pick(projects);
  if (p.drawings.length < 3 && chance(0.4)) {
    const drawing = addDrawing(p, `Plan ${++counter}`);
    p.drawings.push(drawing.id);
    deliver('/webhooks/events', events.drawingCreated(service.drawingView(drawing.id)), SECRETS.events);
  } else {
    const drawing = service.updateDrawing(pick(p.drawings));
    deliver('/webhooks/events', events.drawingUpdated(service.drawingView(drawing.id)), SECRETS.events);
  }
}

function exportPrompt(): void {
  const p = pick(projects);
  const drawingId = pick(p.drawings);
  const yes = chance(0.6);
  if (p.crm === 'appointment') {
    const body = appointmentPrompt({ project_id: p.id, drawing_id: drawingId, appointment_id: p.appointmentId!, yes_no: yes });
    deliver('/webhooks/appointment-crm/export-prompt', body, SECRETS.appointment, () => (p.exportedYes ||= yes));
  } else {
    const body = recordPrompt({ drawing_id: drawingId, record_crm_module: p.module!, record_crm_record_id: p.recordId!, yes_no: yes });
    deliver('/webhooks/record-crm/export-prompt', body, SECRETS.record, (raw) => {
      if (!yes) return;
      p.recordExports.add(raw);
      p.exportedDrawings.add(drawingId);
    });
  }
}

function approve(): void {
  // Deal-mapped projects are a quarter of them: picked more often, so that some Deals and Quotes are approved.
  const dealsWaiting = projects.filter((p) => dealMapped(p) && p.proposals.length === 0);
  const p = dealsWaiting.length > 0 && chance(0.3) ? pick(dealsWaiting) : pick(projects);
  if (p.proposals.length >= 2) return;
  if (chance(0.2)) {
    const pending = service.addProposal({ project_id: p.id, status: 'PENDING' });
    deliver('/webhooks/events', events.proposalStatusChanged(pending), SECRETS.events);
    return;
  }
  // A Deal holds one Amount: one approval per Deal-mapped project, so the Amount it must end with is known.
  if (dealMapped(p) && p.proposals.length > 0) return;
  const proposal = service.addProposal({ project_id: p.id, status: 'APPROVED', approved_option: { drawing_id: pick(p.drawings) } });
  p.proposals.push(proposal);
  const body = events.proposalStatusChanged(proposal);
  deliver('/webhooks/events', body, SECRETS.events);
  // Re-delivered: the deprecated event of the same approval at once, or the same body again a few seconds later.
  const redelivery = random();
  if (redelivery < 0.25) deliver('/webhooks/events', events.proposalApproved(proposal), SECRETS.events);
  else if (redelivery < 0.45) later(2_000 + random() * 6_000, () => deliver('/webhooks/events', body, SECRETS.events));
}

/** Runs `send` after `ms`; the settling waits for it as for any send. */
function later(ms: number, send: () => void): void {
  const waiting = sleep(ms).then(send);
  sends.add(waiting);
  void waiting.finally(() => sends.delete(waiting));
}

function pay(): void {
  const withProposals = projects.filter((p) => p.proposals.length > 0);
  if (withProposals.length === 0) return;
  const proposal = pick(pick(withProposals).proposals);
  // A distinct time per payment: a note is recognised by it.
  const payment = service.addPayment(proposal.proposal_id, {
    paid_amount: 100 + (++counter % 900),
    pay_channel: 'service_payment',
    paid_time: new Date(Date.UTC(2026, 0, 1) + counter * 1000).toISOString(),
    payment_method: pick(['Card', 'ACH', 'Check']),
    status: 'succeeded',
  });
  deliver('/webhooks/events', events.paymentReceived(proposal.proposal_id, proposal.approved_option!.drawing_id, payment), SECRETS.events);
}

/**
 * The CRMs as revenue ops use them: an appointment or a Deal appears (qualifying or not yet), a waiting one is
 * confirmed or signed (it qualifies then), a qualified one is edited again (it must not get a second project).
 */
function automationTraffic(): void {
  const crm = chance(0.5) ? 'appointment' : 'record';
  const mine = [...automated].filter(([, a]) => a.crm === crm);
  const waiting = mine.filter(([, a]) => !a.qualified && !a.cancelled).map(([id]) => id);
  const qualified = mine.filter(([, a]) => a.qualified).map(([id]) => id);
  const roll = random();
  if (waiting.length > 0 && roll < 0.35) {
    const id = pick(waiting);
    if (crm === 'appointment') appointments.editAppointment(id, { status: QUALIFYING_STATUS });
    else zoho.modifyRecord('Deals', id, { Stage: QUALIFYING_STAGE });
    automated.set(id, { crm, qualified: true, cancelled: false });
    stats.automationEdits++;
  } else if (qualified.length > 0 && roll < 0.55) {
    const id = pick(qualified);
    if (crm === 'appointment') {
      appointments.editAppointment(id, { customer: { name: `Soak customer ${id}`, email: `soak-${id}@example.com`, phone: `555-${++counter}` } } as never);
    } else zoho.modifyRecord('Deals', id, { Amount: 1000 + ++counter });
    stats.automationEdits++;
  } else if (automated.size < MAX_AUTOMATED) {
    // Some qualify at once, some later, some never (cancelled, lost).
    const state = pick(['qualified', 'qualified', 'waiting', 'waiting', 'cancelled'] as const);
    let id: string;
    if (crm === 'appointment') {
      id = `AUTO-${++counter}`;
      const status = { qualified: QUALIFYING_STATUS, waiting: 'Scheduled', cancelled: 'Cancelled' }[state];
      appointments.addAppointment(id, { status, customer: { name: `Soak customer ${id}`, email: `soak-${id}@example.com` } } as never);
    } else {
      const stage = { qualified: QUALIFYING_STAGE, waiting: 'Qualification', cancelled: 'Closed Lost' }[state];
      id = zoho.addRecord('Deals', undefined, { Deal_Name: `Soak deal ${++counter}`, Stage: stage });
    }
    automated.set(id, { crm, qualified: state === 'qualified', cancelled: state === 'cancelled' });
  }
}

/** Traffic runs for SOAK_SECONDS, and on while the last crashes are still being made. */
async function trafficLoop(until: number, chaos: { done: boolean }): Promise<void> {
  await mapProjects(6);
  let nextRetry = now() + 15_000;
  while (now() < until || !chaos.done) {
    const roll = random();
    if (roll < 0.08) await mapProjects(2);
    else if (roll < 0.4) uploadDrawing();
    else if (roll < 0.65) exportPrompt();
    else if (roll < 0.8) approve();
    else pay();
    if (chance(0.3)) automationTraffic();
    if (now() >= nextRetry) {
      nextRetry = now() + 15_000;
      await retryFailed();
    }
    await sleep(250 + random() * 400);
  }
}

interface FailedEntry {
  id: string;
  kind: string;
  error: string | null;
  finished_at: Date;
}

/** Every failure seen before an admin retried it (a retried entry keeps only its latest error), by id and time. */
const failures = new Map<string, FailedEntry>();

async function retryFailed(): Promise<number> {
  for (const e of await query<FailedEntry>(`SELECT id, kind, error, finished_at FROM sync_log WHERE status = 'failed'`)) {
    failures.set(`${e.id}@${e.finished_at.getTime()}`, e);
  }
  const answer = await admin<{ retried: number }>('/api/sync-logs/retry?status=failed', { body: '{}' });
  stats.adminRetries += answer.retried;
  return answer.retried;
}

// ---- faults ---------------------------------------------------------------------------------------------------------

type Crm = 'appointment' | 'zoho';
const crmServer = (crm: Crm): SimServer => (crm === 'appointment' ? appointments : zoho.api);
let outageOf: Crm | null = null;

function randomFault(crm: Crm): Fault {
  const uploads = crm === 'appointment' ? /\/files$/ : /\/Attachments$/;
  switch (pick(['5xx', '429', 'timeout', 'reset', 'slow upload'] as const)) {
    case '5xx':
      return { times: 1, status: pick([500, 502, 503]) };
    case '429':
      return { times: 1, status: 429, retryAfterSeconds: 1 };
    case 'timeout':
      return chance(0.5) ? { times: 1, method: 'GET', delayMs: HTTP_TIMEOUT_MS + 1_000 } : writeTimeout(crm, uploads);
    case 'reset':
      // The simulator drops the connection before it handles the request.
      return { times: 1, dropConnection: true };
    case 'slow upload':
      return { times: 1, method: 'POST', path: uploads, delayMs: 1_500 };
  }
}

/**
 * A write the CRM applies a second after the daemon stopped waiting for its answer: within the time the daemon then
 * waits before looking for it (docs/guarantees.md). Not the appointment CRM's notes: its interface cannot list them.
 * Zoho's: a note, or a Quote's create (found by its Subject before another is made).
 */
function writeTimeout(crm: Crm, uploads: RegExp): Fault {
  return crm === 'zoho' && chance(0.5)
    ? { times: 1, method: 'POST', path: chance(0.5) ? /\/Notes$/ : /\/Quotes$/, delayMs: HTTP_TIMEOUT_MS + 1_000 }
    : { times: 1, method: 'POST', path: uploads, delayMs: UPLOAD_TIMEOUT_MS + 1_000 };
}

function faultKind(fault: Fault): string {
  if (fault.body === OUTAGE_BODY) return 'outage 503';
  if (fault.dropConnection) return 'connection reset';
  if (fault.status === 429) return '429 Retry-After';
  if (fault.status) return '5xx';
  if (fault.method === 'GET') return 'time-out';
  return (fault.delayMs ?? 0) > HTTP_TIMEOUT_MS ? 'write time-out' : 'slow upload';
}

async function faultLoop(): Promise<void> {
  while (faultsOn) {
    for (const crm of ['appointment', 'zoho'] as const) {
      const server = crmServer(crm);
      const pending = injected - appointments.faultsHit.length - zoho.api.faultsHit.length;
      if (outageOf !== crm && pending < 4 && chance(FAULTS_PER_SECOND / 5)) {
        server.injectFault(randomFault(crm));
        injected++;
      }
    }
    await sleep(200);
  }
}

/** Entries running when a crash happens; the crash's work has resumed when each has finished or started again. */
async function crash(kind: string, act: () => Promise<void>, after: () => Promise<void>): Promise<void> {
  stats.crashes[kind] = (stats.crashes[kind] ?? 0) + 1;
  const running = await query<{ id: string; attempts: number }>(`SELECT id, attempts FROM sync_log WHERE status = 'running'`);
  const at = now();
  console.log(`  ${((at - started) / 1000).toFixed(0).padStart(4)} s  ${kind} (${running.length} action(s) running)`);
  await act();
  const watching = (async () => {
    await after();
    const deadline = at + 180_000;
    const slow: string[] = [];
    while (now() < deadline) {
      const rows = running.length
        ? await query<{ id: string; kind: string; crm: string; attempts: number; error: string | null }>(
            `SELECT id, kind, crm, attempts, error FROM sync_log WHERE id = ANY($1::bigint[]) AND status = 'running' AND started_at <= to_timestamp($2 / 1000.0)`,
            [running.map((r) => r.id), at],
          )
        : (await query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE finished_at > to_timestamp($1 / 1000.0)`, [at])).filter((r) => r.n === '0');
      if (rows.length === 0) {
        resumptions.push({ kind, ms: now() - at, slow });
        return;
      }
      if (slow.length === 0 && now() - at > 15_000) slow.push(...rows.map((r) => JSON.stringify(r)));
      await sleep(100);
    }
    resumptions.push({ kind, ms: null, slow });
  })();
  background.add(watching);
}

async function killReplica(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const replica = pick(live());
  if (!replica) return;
  await crash(
    `replica ${signal}`,
    () => replica.daemon!.stop(signal),
    async () => {
      await sleep(1_000 + random() * 2_000);
      await startReplica(replica);
    },
  );
}

/** Stops a server the replicas need and starts it again 2 s later; the time it was away is an outage of `what`. */
async function restartServer(kind: string, what: string, stop: () => Promise<void>, start: () => Promise<void>): Promise<void> {
  await crash(kind, stop, async () => {
    const from = now();
    await sleep(2_000);
    await start();
    outages.push({ from, to: now(), what });
  });
}

const restartPostgres = () =>
  restartServer(
    'Postgres restart',
    'postgres',
    () => cluster.stop('fast'),
    () => cluster.start(),
  );
const restartRedis = () =>
  restartServer(
    'Redis restart',
    'redis',
    () => redis.stop(),
    () => redis.start(),
  );

async function flushRedis(): Promise<void> {
  await crash(
    'Redis FLUSHALL',
    () => redis.flushAll(),
    async () => undefined,
  );
}

/** The appointment CRM answers 503 to everything for longer than an action's tries last; then a reconciliation. */
async function crmOutage(crm: Crm, seconds: number): Promise<void> {
  const server = crmServer(crm);
  const from = now();
  console.log(`  ${((from - started) / 1000).toFixed(0).padStart(4)} s  ${crm} CRM outage for ${seconds} s`);
  outageOf = crm;
  server.injectFault({ times: 1e9, status: 503, body: OUTAGE_BODY });
  await sleep(seconds * 1000);
  server.clearFaults();
  outageOf = null;
  outages.push({ from, to: now(), what: `${crm} outage` });
  console.log(`  ${((now() - started) / 1000).toFixed(0).padStart(4)} s  ${crm} CRM back; reconciliation and a retry of the failed entries`);
  await admin('/api/reconcile', { body: '{}' });
  stats.reconciles++;
  await retryFailed();
}

/** Crashes and the CRM outage at random moments, one at a time (so that a crash's recovery is measured on its own). */
async function chaosLoop(until: number): Promise<void> {
  const span = until - now();
  // The appointment CRM's retry budget with the compressed backoff is about 45 s (8 runs of 4 calls each, and the
  // job's backoff between runs); Zoho's nested retries (each upload try looks for the attachment first) last longer.
  const outageSeconds = 60;
  const steps: Array<() => Promise<void>> = [];
  for (let i = 0; i < Math.max(1, Math.round(SECONDS / 150)); i++) {
    steps.push(
      () => killReplica('SIGKILL'),
      () => restartPostgres(),
      () => killReplica('SIGTERM'),
    );
  }
  steps.push(
    () => restartRedis(),
    () => flushRedis(),
    () => killReplica('SIGKILL'),
  );
  // After the outage, the actions it held back run for a while: the next crash waits, to be measured on its own.
  steps.splice(1 + Math.floor(random() * (steps.length - 1)), 0, async () => {
    await crmOutage('appointment', outageSeconds);
    await sleep(15_000);
  });
  const slot = (span * 0.9) / steps.length;
  const base = now();
  for (const [i, step] of steps.entries()) {
    const at = base + slot * i + slot * (0.2 + random() * 0.5);
    if (at > now()) await sleep(at - now());
    await step();
    // The next waits until the last crash's work has resumed (or 30 s), so that each recovery is measured alone.
    await Promise.race([Promise.all([...background]), sleep(30_000)]);
  }
}

// ---- settling and the invariants ----------------------------------------------------------------------------------

async function busy(): Promise<{ actions: number; deliveries: number }> {
  const [a] = await query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE status IN ('queued', 'running')`);
  const [d] = await query<{ n: string }>(`SELECT count(*) AS n FROM webhook_inbox WHERE status = 'received'`);
  return { actions: Number(a.n), deliveries: Number(d.n) };
}

/** Records that qualified and have no mapping yet. */
async function unmappedQualified(): Promise<string[]> {
  const ids = [...automated].filter(([, a]) => a.qualified).map(([id]) => id);
  const rows = await query<{ id: string }>(
    `SELECT coalesce(appointment_id, record_crm_record_id) AS id FROM mapping WHERE coalesce(appointment_id, record_crm_record_id) = ANY($1::text[])`,
    [ids],
  );
  const mapped = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !mapped.has(id));
}

/** Once the faults stopped: reads both CRMs until every qualifying record is mapped (or the deadline). */
async function settleAutomations(deadline: number): Promise<boolean> {
  while (now() < deadline) {
    if ((await unmappedQualified()).length === 0) return settle(deadline);
    await admin('/api/automations/appointment-crm/run', { body: '{}' });
    await admin('/api/automations/record-crm/run', { body: '{}' });
    await settle(deadline);
    await sleep(AUTOMATION_POLL_SECONDS * 1000);
  }
  return false;
}

async function settle(deadline: number): Promise<boolean> {
  let quiet = 0;
  while (now() < deadline) {
    const { actions, deliveries } = await busy();
    quiet = actions === 0 && deliveries === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return true;
    await sleep(1_000);
  }
  return false;
}

interface Check {
  name: string;
  problems: string[];
}

async function checkInvariants(): Promise<{ checks: Check[]; figures: Record<string, number> }> {
  const checks: Check[] = [];
  const figures = { pushes: 0, lost: 0, doubled: 0, appointmentNotesDoubledByLimit: 0, projectsCreated: 0, dealApprovals: 0, quotes: 0 };
  const lost = (what: string) => {
    figures.lost++;
    return `missing: ${what}`;
  };
  const doubled = (what: string, n: number) => {
    figures.doubled += n - 1;
    return `doubled (${n}×): ${what}`;
  };

  // Exactly once, against what the service's data implies.
  const once: string[] = [];
  const noteMayDouble = (stats.crashes['replica SIGKILL'] ?? 0) > 0;
  for (const p of projects) {
    const payments = p.proposals.flatMap((proposal) => (service.payments.get(proposal.proposal_id) ?? []).map((pay) => ({ proposal, pay })));
    if (p.crm === 'appointment') {
      const appt = appointments.get(p.appointmentId!)!;
      const drawingFiles = appt.files.filter((f) => f.category === 'drawing');
      for (const drawingId of p.drawings) {
        const pdf = service.drawings.get(drawingId)!.pdf;
        const n = drawingFiles.filter((f) => f.bytes.equals(pdf)).length;
        if (n === 0) once.push(lost(`appointment ${appt.id}: the latest PDF of drawing ${drawingId}`));
        if (n > 1) once.push(doubled(`appointment ${appt.id}: drawing ${drawingId}'s PDF`, n));
      }
      if (drawingFiles.length > p.drawings.length) once.push(`appointment ${appt.id}: ${drawingFiles.length} drawing files for ${p.drawings.length} drawings`);
      figures.pushes += drawingFiles.length;
      const sold = p.exportedYes || p.proposals.length > 0;
      const proposalFiles = appt.files.filter((f) => f.category === 'proposal').length;
      if (sold) {
        if (proposalFiles === 0) once.push(lost(`appointment ${appt.id}: its proposal PDF`));
        if (proposalFiles > 1) once.push(doubled(`appointment ${appt.id}: proposal PDF`, proposalFiles));
        if (appt.sale === null) once.push(lost(`appointment ${appt.id}: its sale`));
        if (appt.status !== 'Sold') once.push(lost(`appointment ${appt.id}: status Sold (it is ${appt.status})`));
        figures.pushes += 3;
      } else if (proposalFiles > 0 || appt.sale !== null) {
        once.push(`appointment ${appt.id}: a proposal or sale though no export was answered yes and no proposal approved`);
      }
      for (const { pay } of payments) {
        const n = appt.notes.filter((note) => note.text.includes(`date: ${pay.paid_time};`)).length;
        figures.pushes += Math.min(n, 1);
        if (n === 0) once.push(lost(`appointment ${appt.id}: the note of the payment at ${pay.paid_time}`));
        // The interface cannot list notes: a replica killed between the POST and its record adds it again (documented
        // in docs/guarantees.md, "Limits").
        if (n > 1 && noteMayDouble) figures.appointmentNotesDoubledByLimit += n - 1;
        else if (n > 1) once.push(doubled(`appointment ${appt.id}: the note of the payment at ${pay.paid_time}`, n));
      }
      if (appt.notes.length > payments.length + figures.appointmentNotesDoubledByLimit) {
        once.push(`appointment ${appt.id}: ${appt.notes.length} notes for ${payments.length} payments`);
      }
    } else {
      const attachments = zoho.attachmentsOf(p.module!, p.recordId!);
      const notes = zoho.notesOf(p.module!, p.recordId!);
      const where = `${p.module} ${p.recordId}`;
      for (const proposal of p.proposals) {
        const n = attachments.filter((a) => a.fileName === `proposal-${proposal.proposal_id}-signed.pdf`).length;
        if (n === 0) once.push(lost(`${where}: the signed PDF of proposal ${proposal.proposal_id}`));
        if (n > 1) once.push(doubled(`${where}: the signed PDF of proposal ${proposal.proposal_id}`, n));
      }
      const exports = new Map<string, number>();
      for (const a of attachments) {
        const suffix = / \[([^\]]+)\]\.pdf$/.exec(a.fileName)?.[1];
        if (suffix) exports.set(suffix, (exports.get(suffix) ?? 0) + 1);
      }
      for (const [suffix, n] of exports) if (n > 1) once.push(doubled(`${where}: the export [${suffix}]`, n));
      if (exports.size < p.recordExports.size) once.push(lost(`${where}: ${p.recordExports.size - exports.size} of ${p.recordExports.size} exports`));
      if (exports.size > p.recordExports.size) once.push(`${where}: ${exports.size} exports for ${p.recordExports.size} delivered yes prompts`);
      figures.pushes += attachments.length;
      for (const { pay } of payments) {
        const n = notes.filter((note) => note.content.includes(`Date: ${pay.paid_time}`)).length;
        figures.pushes += Math.min(n, 1);
        if (n === 0) once.push(lost(`${where}: the note of the payment at ${pay.paid_time}`));
        if (n > 1) once.push(doubled(`${where}: the note of the payment at ${pay.paid_time}`, n));
      }
      if (notes.length > payments.length) once.push(`${where}: ${notes.length} notes for ${payments.length} payments`);
    }
  }
  checks.push({ name: 'every fact reached its CRM exactly once', problems: once });
  checks.push({
    name: "every approval of a Deal is its Amount and Stage, and one Quote per drawing with the service's total",
    problems: revenueProblems(figures, lost, doubled),
  });

  // One project per record that qualified, mapped to it; none for the others.
  const oneProject: string[] = [];
  const mappedTo = new Map(
    (
      await query<{ id: string; project_id: string; source: string }>(
        `SELECT coalesce(appointment_id, record_crm_record_id) AS id, project_id, source FROM mapping`,
      )
    ).map((m) => [m.id, m]),
  );
  for (const [id, a] of automated) {
    const what = a.crm === 'appointment' ? `appointment ${id}` : `Deal ${id}`;
    const made = [...service.projects.values()].filter((p) => p.name.endsWith(` (${id})`));
    figures.projectsCreated += made.length;
    if (!a.qualified) {
      if (made.length > 0) oneProject.push(`${what} never qualified but has ${made.length} project(s)`);
      continue;
    }
    if (made.length === 0) oneProject.push(lost(`${what}: its project`));
    if (made.length > 1) oneProject.push(doubled(`${what}: its project`, made.length));
    const mapping = mappedTo.get(id);
    if (made.length === 1 && (!mapping || mapping.project_id !== made[0].id || mapping.source !== 'automation')) {
      oneProject.push(`${what}: mapped ${mapping ? `to ${mapping.project_id} by ${mapping.source}` : 'to nothing'}, not to its project ${made[0].id}`);
    }
  }
  checks.push({ name: 'one project per appointment or Deal that qualified (none for the others)', problems: oneProject });

  const { actions, deliveries } = await busy();
  checks.push({
    name: 'no action queued or running, no delivery unrouted',
    problems: [...(actions ? [`${actions} action(s) queued or running`] : []), ...(deliveries ? [`${deliveries} delivery(ies) still received`] : [])],
  });

  const explained = (e: { error: string | null; finished_at: Date }) =>
    INJECTED_FAILURE.test(e.error ?? '') || outages.some((o) => e.finished_at.getTime() >= o.from - 1_000 && e.finished_at.getTime() <= o.to + 30_000);
  const stillFailed = await query<FailedEntry>(`SELECT id, kind, error, finished_at FROM sync_log WHERE status = 'failed' ORDER BY id`);
  checks.push({
    name: 'every failed entry is explained by an injected fault',
    problems: [...failures.values(), ...stillFailed].filter((e) => !explained(e)).map((e) => `#${e.id} ${e.kind}: ${e.error}`),
  });
  checks.push({
    name: 'no entry left failed after the faults stopped and an admin retried',
    problems: stillFailed.map((e) => `#${e.id} ${e.kind}: ${e.error}`),
  });

  const missing: string[] = [];
  for (const d of delivered) {
    const [row] = await query<{ n: string }>(`SELECT count(*) AS n FROM webhook_inbox WHERE body = $1`, [Buffer.from(d.raw)]);
    if (Number(row.n) === 0) missing.push(`${d.path}: ${d.raw.slice(0, 160)}`);
  }
  figures.lost += missing.length;
  checks.push({ name: 'every webhook answered 2xx is in the inbox', problems: missing });

  const mappings = await query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM mapping GROUP BY status`);
  const notAssociated = mappings.filter((m) => m.status !== 'associated').map((m) => `${m.n} mapping(s) ${m.status}`);
  checks.push({ name: 'every mapping associated', problems: notAssociated });
  return { checks, figures };
}

const cents = (value: unknown) => Math.round(Number(value) * 100);

/**
 * Revenue in Zoho: each approved proposal of a Deal-mapped project is the Deal's Amount to the cent and its Stage
 * Closed Won; each drawing approved or exported (answered yes) has exactly one Quote on the Deal (Deal_Name, Subject
 * `Drawing <id> - …`) whose Grand_Total is the drawing's total to the cent; no drawing has two.
 */
function revenueProblems(
  figures: { pushes: number; dealApprovals: number; quotes: number },
  lost: (what: string) => string,
  doubled: (what: string, n: number) => string,
): string[] {
  const problems: string[] = [];
  for (const p of projects.filter(dealMapped)) {
    const where = `Deal ${p.recordId}`;
    const deal = zoho.revenue.fieldsOf('Deals', p.recordId!);
    const quotes = zoho.revenue.quotesOfDeal(p.recordId!);
    const approved = new Set(p.proposals.map((proposal) => proposal.approved_option!.drawing_id));
    for (const proposal of p.proposals) {
      figures.pushes += 2;
      figures.dealApprovals++;
      if (deal.Amount === undefined) problems.push(lost(`${where}: the Amount of proposal ${proposal.proposal_id}`));
      else if (cents(deal.Amount) !== cents(proposal.total)) problems.push(`${where}: Amount ${String(deal.Amount)}, not the approved ${proposal.total}`);
      if (deal.Stage !== WON_STAGE) problems.push(`${where}: Stage ${String(deal.Stage)}, not ${WON_STAGE} after proposal ${proposal.proposal_id}`);
    }
    for (const drawingId of p.drawings) {
      const prefix = `Drawing ${drawingId} - `;
      const mine = quotes.filter((q) => typeof q.fields.Subject === 'string' && q.fields.Subject.startsWith(prefix));
      const why = approved.has(drawingId) ? 'approved' : p.exportedDrawings.has(drawingId) ? 'exported' : null;
      if (mine.length > 1) problems.push(doubled(`${where}: the Quote of drawing ${drawingId}`, mine.length));
      if (why && mine.length === 0) problems.push(lost(`${where}: the Quote of drawing ${drawingId} (${why})`));
      if (!why && mine.length === 0) continue;
      figures.pushes++;
      figures.quotes += mine.length;
      const total = service.drawings.get(drawingId)!.lineItems.total;
      for (const q of mine.filter((q) => cents(q.fields.Grand_Total) !== cents(total))) {
        problems.push(`${where}: Quote ${q.id} of drawing ${drawingId} has Grand_Total ${String(q.fields.Grand_Total)}, not the service's ${total.toFixed(2)}`);
      }
    }
    const strays = quotes.filter((q) => !p.drawings.some((d) => String(q.fields.Subject).startsWith(`Drawing ${d} - `)));
    if (strays.length > 0) problems.push(`${where}: ${strays.length} Quote(s) of no drawing of its project`);
  }
  return problems;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

// ---- the run --------------------------------------------------------------------------------------------------------

const started = now();

async function main(): Promise<number> {
  console.log(`crm-sync soak: ${SECONDS} s of traffic and faults, ${REPLICAS} replicas, seed ${SEED} (SOAK_SEED=${SEED} repeats the choices)`);
  await cluster.init();
  await redis.start();
  await Promise.all([service.start(), appointments.start(), zoho.start()]);
  service.addTemplate('Standard proposal');
  for (let i = 0; i < 3; i++) skus.push(service.addProduct().sku);
  for (const sku of skus.slice(0, 2)) zoho.revenue.addProduct(`Zoho ${sku}`, sku);
  const fallbackProduct = zoho.revenue.addProduct('Services', 'SERVICES');
  for (let index = 0; index < REPLICAS; index++) {
    const port = await freePort();
    replicas.push({ index, port, url: `http://127.0.0.1:${port}`, log: '' });
  }
  // The first creates the database and runs the migrations; the others join it.
  await startReplica(replicas[0]);
  // Set through the first replica alone: a replica that read the settings before keeps them up to 10 s, and ran a
  // create_project with no owner.
  await admin('/api/automations/appointment-crm', {
    method: 'PUT',
    body: JSON.stringify({ create_projects: true, statuses: [QUALIFYING_STATUS], owner: 'owner@example.com' }),
  });
  await admin('/api/automations/record-crm', {
    method: 'PUT',
    body: JSON.stringify({
      create_projects: true,
      module: 'Deals',
      field: 'Stage',
      values: [QUALIFYING_STAGE],
      owner: 'owner@example.com',
      quote_line_items: true,
      fallback_product_id: fallbackProduct,
    }),
  });
  await Promise.all(replicas.slice(1).map(startReplica));
  pool = new pg.Pool({ connectionString: `${cluster.url}/crm_sync`, max: 4 });
  pool.on('error', () => undefined);
  console.log(`Postgres :${cluster.port}, Redis :${redis.port}, replicas ${replicas.map((r) => `:${r.port}`).join(' ')}; faults and traffic start`);

  const trafficStart = now();
  const until = trafficStart + SECONDS * 1000;
  faultsOn = true;
  const faults = faultLoop();
  const chaos = { done: false };
  await Promise.all([trafficLoop(until, chaos), chaosLoop(until).finally(() => (chaos.done = true))]);
  faultsOn = false;
  await faults;
  appointments.clearFaults();
  zoho.api.clearFaults();
  const trafficMs = now() - trafficStart;
  console.log(`  ${((now() - started) / 1000).toFixed(0).padStart(4)} s  faults stopped; settling (deadline ${SETTLE_MS / 1000} s)`);

  const deadline = now() + SETTLE_MS;
  await Promise.race([Promise.all([...background, ...sends]), sleep(Math.max(0, deadline - now()))]);
  await admin('/api/reconcile', { body: '{}' });
  stats.reconciles++;
  let settled = await settle(deadline);
  const failedBeforeRetry = await query<FailedEntry>(`SELECT id, kind, error, finished_at FROM sync_log WHERE status = 'failed' ORDER BY id`);
  if (failedBeforeRetry.length > 0) {
    await retryFailed();
    settled = await settle(deadline);
  }
  settled = (await settleAutomations(deadline)) && settled;
  const settleMs = now() - deadline + SETTLE_MS;

  const { checks, figures } = await checkInvariants();
  if (!settled) checks.push({ name: 'settled before the deadline', problems: [`still busy after ${SETTLE_MS / 1000} s`] });

  const faultCounts = new Map<string, number>();
  for (const hit of [...appointments.faultsHit, ...zoho.api.faultsHit]) faultCounts.set(faultKind(hit.fault), (faultCounts.get(faultKind(hit.fault)) ?? 0) + 1);
  const [outcomes] = await query<{ succeeded: string; skipped: string; failed: string; total: string }>(
    `SELECT count(*) FILTER (WHERE status = 'succeeded') AS succeeded, count(*) FILTER (WHERE status = 'skipped') AS skipped,
            count(*) FILTER (WHERE status = 'failed') AS failed, count(*) AS total FROM sync_log`,
  );
  const [inbox] = await query<{ n: string; duplicates: string }>(`SELECT count(*) AS n, coalesce(sum(duplicates), 0) AS duplicates FROM webhook_inbox`);
  const resumed = resumptions.filter((r) => r.ms !== null).map((r) => r.ms!);

  const row = (label: string, value: string) => console.log(`${label.padEnd(38)} ${value}`);
  console.log(`\nsoak figures (seed ${SEED}, ${(trafficMs / 1000).toFixed(0)} s of traffic, settled in ${(settleMs / 1000).toFixed(0)} s)`);
  row(
    'projects mapped',
    `${projects.length} (${projects.filter((p) => p.crm === 'appointment').length} appointment, ${projects.filter((p) => p.crm === 'record').length} Zoho)`,
  );
  for (const crm of ['appointment', 'record'] as const) {
    const mine = [...automated.values()].filter((a) => a.crm === crm);
    row(
      crm === 'appointment' ? 'appointments for the automation' : 'Deals for the automation',
      `${mine.length} added, ${mine.filter((a) => a.qualified).length} qualified`,
    );
  }
  row('automation records', `${stats.automationEdits} edits; ${figures.projectsCreated} projects created`);
  row('webhooks sent', `${stats.webhooks}: ${stats.delivered} answered 2xx, ${stats.undelivered} given up, ${stats.attempts} attempts`);
  row('inbox', `${inbox.n} deliveries stored, ${inbox.duplicates} re-deliveries answered duplicate`);
  row('sync log', `${outcomes.total} entries: ${outcomes.succeeded} succeeded, ${outcomes.skipped} skipped, ${outcomes.failed} failed`);
  const byOutage = [...failures.values()].filter((e) => e.error?.includes(OUTAGE_BODY.error)).length;
  row(
    'failed entries',
    `${failures.size} failures seen before admin retries (${byOutage} ran out of tries in the outage), ${failedBeforeRetry.length} failed when the faults had stopped`,
  );
  row('admin', `${stats.adminCalls} calls, ${stats.adminRetries} entries retried, ${stats.reconciles} reconciliations`);
  row('faults hit', [...faultCounts].map(([k, n]) => `${k} ${n}`).join(', ') || 'none');
  row(
    'crashes',
    Object.entries(stats.crashes)
      .map(([k, n]) => `${k} ${n}`)
      .join(', '),
  );
  row('pushes checked in the CRMs', String(figures.pushes));
  row('revenue checked in Zoho', `${figures.dealApprovals} Deals approved (Amount, Stage), ${figures.quotes} Quotes (one per drawing, Grand_Total)`);
  row('lost', String(figures.lost));
  row('doubled', String(figures.doubled));
  if (figures.appointmentNotesDoubledByLimit > 0) row('appointment notes doubled (documented limit)', String(figures.appointmentNotesDoubledByLimit));
  row(
    'crash to resumption of its work',
    resumed.length > 0
      ? `p50 ${(percentile(resumed, 0.5) / 1000).toFixed(1)} s, max ${(Math.max(...resumed) / 1000).toFixed(1)} s over ${resumed.length} crashes` +
          (resumed.length < resumptions.length ? `; ${resumptions.length - resumed.length} never resumed` : '')
      : 'none measured',
  );
  for (const r of resumptions) {
    row(`  ${r.kind}`, r.ms === null ? 'not resumed within 180 s' : `${(r.ms / 1000).toFixed(1)} s`);
    for (const entry of r.slow) console.log(`      still running after 15 s: ${entry}`);
  }
  if (resumed.length < resumptions.length) checks.push({ name: "every crash's work resumed", problems: ['see above'] });

  const failedChecks = checks.filter((c) => c.problems.length > 0);
  console.log('');
  for (const check of checks) {
    console.log(`${check.problems.length === 0 ? 'ok  ' : 'FAIL'} ${check.name}`);
    for (const problem of check.problems.slice(0, 20)) console.log(`       ${problem}`);
    if (check.problems.length > 20) console.log(`       … and ${check.problems.length - 20} more`);
  }
  if (failedChecks.length > 0) {
    console.log(`\nINVARIANTS FAILED: ${failedChecks.map((c) => c.name).join('; ')}`);
    for (const replica of replicas) {
      const lines = (replica.log + (replica.daemon?.output() ?? '')).split('\n').filter((l) => /"level":(50|60)/.test(l));
      if (lines.length) console.log(`--- replica ${replica.index}: ${lines.length} error line(s), last:\n${lines.slice(-5).join('\n')}`);
    }
    return 1;
  }
  console.log('\nall invariants hold');
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`soak failed: ${(err as Error).stack ?? String(err)}`);
  for (const replica of replicas)
    console.error(`--- replica ${replica.index} (last lines)\n${(replica.log + (replica.daemon?.output() ?? '')).split('\n').slice(-15).join('\n')}`);
} finally {
  await cleanup().catch((err: Error) => console.error(`cleanup: ${err.message}`));
}
process.exit(code);
