/** The soak's world: its knobs, its random choices, the servers and replicas it runs, and what every part records. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ServiceSim, WebhookSender } from '../../sim/service/index.js';
import type { LineItemsResult, Proposal } from '../../sim/service/types.js';
import { ZohoSim, type ZohoModule } from '../../sim/zoho/zoho-sim.js';
import { PgCluster, RedisServer, stopClusterNow } from '../soak-infra.js';
import { startDaemon, type Daemon } from '../support.js';
import { appointmentCrmOf } from './appointment-crm.js';

export const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
export const SETTLE_MS = Number(process.env.SOAK_SETTLE_SECONDS ?? 300) * 1000;
export const SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 1e9));
export const KEEP = process.env.SOAK_KEEP === '1';
/** The appointment CRM soaked: `rest` (the simulator of docs/appointment-crm.md) or `salesforce` (improveit 360, crm-sync pushing). */
export const APPOINTMENT_CRM = process.env.SOAK_APPOINTMENT_CRM ?? 'rest';
/** The goal of crash to resumption of the crashed work (docs/guarantees.md): a slower one fails the run. */
export const RECOVERY_GOAL_MS = Number(process.env.SOAK_RECOVERY_GOAL_SECONDS ?? 10) * 1000;
/**
 * How long a record Zoho wrote stays out of its search index (module_search.yaml: "204 … due to indexing delays"):
 * a Quote whose create answer was lost must be found without search, or a second one is made.
 */
export const ZOHO_SEARCH_LAG_MS = Number(process.env.SOAK_ZOHO_SEARCH_LAG_SECONDS ?? 30) * 1000;
/** The service's retry schedule and the daemon's job backoff run 30 times faster than in production. */
export const TIME_SCALE = 1 / 30;
export const REPLICAS = 3;
export const HTTP_TIMEOUT_MS = 2_000;
export const UPLOAD_TIMEOUT_MS = 5_000;
export const ADMIN_TOKEN = 'soak-admin-token-not-secret';
export const SECRETS = { events: 'soak-events', appointment: 'soak-appointment-prompt', record: 'soak-record-prompt' };
/** Random faults per second state.injected into each CRM while the soak runs. */
export const FAULTS_PER_SECOND = 0.6;
/** How often, per second, every session holding an advisory lock is terminated. */
export const LOCK_LOSSES_PER_SECOND = 0.5;
export const MAX_PROJECTS = 40;
/** Appointments the automation reads (some never qualify); the status that qualifies them. */
export const MAX_AUTOMATED = 60;
export const QUALIFYING_STATUS = 'Confirmed';
/** The Deal stage that qualifies a Deal for the Zoho automation. */
export const QUALIFYING_STAGE = 'Contract Signed';
/** The stage an approval moves a Deal to (the setting's default), and the stage the soak's mapped Deals start at. */
export const WON_STAGE = 'Closed Won';
/** The revenue check's changes pass runs this often (production: 900 s). */
export const REVENUE_CHECK_SECONDS = 5;
/** The automations read the CRMs this often (production: 60 s). */
export const AUTOMATION_POLL_SECONDS = 2;
export const OUTAGE_BODY = { error: 'soak outage' };
/** What a failed entry's error says when one of the soak's faults caused it. */
export const INJECTED_FAILURE =
  /HTTP (5\d\d|429)\b|REQUEST_LIMIT_EXCEEDED|failed: (timeout|network|unavailable|rate_limited)|database|postgres|redis|ECONN|socket hang up|terminat/i;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const now = () => Date.now();
export const started = now();

/** mulberry32: the soak's choices repeat with SOAK_SEED (the machine's timing does not). */
let seedState = SEED >>> 0;
export function random(): number {
  seedState = (seedState + 0x6d2b79f5) >>> 0;
  let t = seedState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
export const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
export const chance = (p: number) => random() < p;

export interface SoakProject {
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
  /** Drawings whose export prompt was answered yes and delivered: each has its Quote on a mapped Deal; an appointment's sale is one's. */
  exportedDrawings: Set<string>;
  /** Its webhooks still being sent (or waiting to be re-delivered), and whether one was given up. */
  sending: number;
  gaveUp: boolean;
  /** A person's edit was injected into one of its records (drifts.ts): its traffic is over, so nothing legitimately rewrites it. */
  drifted: boolean;
}

/** The service's SKUs that Zoho has as products; the third has none (its items take the fallback product). */
export const skus: string[] = [];

/**
 * A drawing's own line items for a Deal-mapped project, in awkward amounts (0.1 × n, 0.1 + 0.2, a third taken off,
 * a tax of a third, sometimes a total near a billion, an item of no Zoho product, a custom price item), distinct per
 * drawing: its Quote's Grand_Total and its proposal's total (the Deal's Amount) must equal the service's to the cent.
 */
export function awkwardLineItems(n: number): LineItemsResult {
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

export const dealMapped = (p: SoakProject) => p.crm === 'record' && p.module === 'Deals';

/** A drawing of the service; a Deal-mapped project's has line items of its own. */
export function addDrawing(p: { id: string; crm: string; module?: ZohoModule }, name: string) {
  return service.addDrawing(p.id, { name, ...(p.crm === 'record' && p.module === 'Deals' ? { lineItems: awkwardLineItems(state.counter) } : {}) });
}

export interface Replica {
  index: number;
  port: number;
  url: string;
  daemon?: Daemon;
  log: string;
}

export interface Resumption {
  kind: string;
  ms: number | null;
  /** The entries that took longer than 15 s, as they were then. */
  slow: string[];
  /** Nothing was running at the crash: `ms` is the time until an entry started after it finished. */
  idle: boolean;
  /** Entries left out of `ms`: an injected fault on their own record struck their run (their time is the fault's). */
  excused: string[];
}

/** Appointments and Deals made for the automations, by id: whether they ever qualified (one project each), never (none). */
export const automated = new Map<string, { crm: 'appointment' | 'record'; qualified: boolean; cancelled: boolean }>();

export const stats = {
  automationEdits: 0,
  webhooks: 0,
  delivered: 0,
  undelivered: 0,
  attempts: 0,
  adminCalls: 0,
  adminRetries: 0,
  reconciles: 0,
  crashes: {} as Record<string, number>,
  /** Sessions holding an advisory lock that the soak terminated. */
  locksLost: 0,
};
export const tmp = mkdtempSync(join(tmpdir(), 'crm-sync-soak-'));
export const cluster = new PgCluster(tmp);
export const redis = new RedisServer();
export const service = new ServiceSim();
export const appointmentCrm = appointmentCrmOf(APPOINTMENT_CRM, random);
export const zoho = new ZohoSim();
export const sender = new WebhookSender({ timeScale: TIME_SCALE, timeoutMs: 5_000 });
export const replicas: Replica[] = [];
export const projects: SoakProject[] = [];
export const delivered: Array<{ path: string; raw: string }> = [];
export const sends = new Set<Promise<void>>();
export const resumptions: Resumption[] = [];
export const background = new Set<Promise<unknown>>();
export const outages: Array<{ from: number; to: number; what: string }> = [];
/** What changes as the run goes, shared by its parts. */
export const state = { pool: undefined as pg.Pool | undefined, faultsOn: false, injected: 0, counter: 0 };
let cleaned = false;

// ---- cleanup: every process and the temporary folder, whatever way the soak ends ---------------------------------

/** This process's own children by pid (Linux): a replica still starting when the soak is stopped is not in `replicas` yet. */
export function killChildren(): void {
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

export function cleanupNow(): void {
  if (cleaned) return;
  cleaned = true;
  sender.stop();
  for (const replica of replicas) replica.daemon?.process.kill('SIGKILL');
  killChildren();
  redis.killNow();
  if (cluster.port) stopClusterNow(cluster);
  if (!KEEP) rmSync(tmp, { recursive: true, force: true });
}

export async function cleanup(): Promise<void> {
  if (cleaned) return;
  sender.stop();
  await Promise.all(replicas.map((r) => r.daemon?.stop('SIGKILL')));
  killChildren();
  for (const replica of replicas) writeFileSync(join(tmp, `replica-${replica.index}.log`), replica.log + (replica.daemon?.output() ?? ''));
  await state.pool?.end().catch(() => undefined);
  await Promise.all([service.stop(), appointmentCrm.stop(), zoho.stop()]).catch(() => undefined);
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

export const QUEUE_PREFIX = 'crm-sync-soak';

export function daemonEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    DATABASE_URL: `${cluster.url}/crm_sync`,
    REDIS_URL: redis.url,
    QUEUE_PREFIX,
    ...service.daemonEnv(),
    SERVICE_API_MAX_RPS: '200',
    WEBHOOK_SECRETS_EVENTS: SECRETS.events,
    WEBHOOK_SECRETS_APPOINTMENT_PROMPT: SECRETS.appointment,
    WEBHOOK_SECRETS_RECORD_PROMPT: SECRETS.record,
    ADMIN_TOKEN,
    CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
    CONNECTIONS_KEY_FILE: join(tmp, 'connections.key'),
    ...appointmentCrm.daemonEnv(),
    ...zoho.daemonEnv(),
    RECONCILE_INTERVAL_SECONDS: '0',
    // The revenue check every few seconds, healing crm-sync's own last writes by itself: the soak injects people's
    // edits and checks that each is found within one pass and none is overwritten (drifts.ts).
    REVENUE_CHECK_INTERVAL_SECONDS: String(REVENUE_CHECK_SECONDS),
    REVENUE_AUTO_HEAL: 'true',
    AUTOMATION_POLL_SECONDS: String(AUTOMATION_POLL_SECONDS),
    HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
    HTTP_UPLOAD_TIMEOUT_MS: String(UPLOAD_TIMEOUT_MS),
    DRAWINGS_COALESCE_MS: '300',
    JOB_BACKOFF_BASE_MS: String(Math.round(5_000 * TIME_SCALE)),
    LOG_LEVEL: 'warn',
  };
}

/** Starts (or restarts) a replica; a start that fails is tried twice more, its output kept in the replica's log. */
export async function startReplica(replica: Replica): Promise<void> {
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

export const live = () => replicas.filter((r) => r.daemon && r.daemon.process.exitCode === null && r.daemon.process.signalCode === null);

/** An admin API call to a live replica, tried again while replicas, Postgres or Redis are down. */
export async function admin<T = Record<string, unknown>>(path: string, init: { method?: string; body?: string; type?: string } = {}): Promise<T> {
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

export async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await state.pool!.query<T>(sql, params)).rows;
    } catch (err) {
      if (attempt >= 120) throw err;
      await sleep(500);
    }
  }
}
