/**
 * What reconciliation costs, against the built daemon as a child process, at 1,000 and 10,000 mapped projects.
 *
 *   npm run bench:reconcile        (BENCH_PROJECTS=1000,10000 to choose the sizes)
 *
 * Each project in the service simulator has one proposal (one in ten approved, with a payment) and is mapped to an
 * appointment in the appointment CRM simulator. A first daemon with a high rate cap makes the first changes pass
 * (the backfill) and is stopped; a second one, at the default cap (SERVICE_API_MAX_RPS=10), is measured:
 *
 * - a changes pass with nothing changed: its service calls and time;
 * - a changes pass after 10 changes (a payment whose webhook was lost on 10 older approved proposals);
 * - a full pass: run for SAMPLE_SECONDS, then its calls per project and pace are read from its progress, and its
 *   duration over every project is extrapolated (a full pass at 5 calls a second takes hours at 10,000 projects).
 *
 * - two replicas against one cap (at the first size): the full pass goes on while a drawing push for every project
 *   with a drawing is sent to both replicas in turn; the simulator counts the calls and the most in any 1 s window.
 *
 * Service calls are counted on the simulator (every request it received while the pass ran). Needs Postgres and
 * Redis (TEST_PG_URL, TEST_REDIS_URL, as the e2e tests).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase } from '../src/database/ensure-database.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { events, ServiceSim, WebhookSender } from '../sim/service/index.js';
import { removeQueueKeys } from '../sim/daemon-env.js';
import { startDaemon, type Daemon } from './support.js';

const SIZES = (process.env.BENCH_PROJECTS ?? '1000,10000').split(',').map(Number);
const MAX_RPS = 10;
const FULL_INTERVAL_SECONDS = 86_400;
const SAMPLE_SECONDS = Number(process.env.BENCH_SAMPLE_SECONDS ?? 20);
const CHANGES = 10;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 14);
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

const TWO_REPLICAS_SECONDS = Number(process.env.BENCH_TWO_REPLICAS_SECONDS ?? 15);
const sender = new WebhookSender();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const n = (value: number) => value.toLocaleString('en-US');

interface Entry {
  status: string;
  detail: string | null;
  payload: { done?: number; total?: number };
  duration_ms: number | null;
}

async function main(): Promise<number> {
  const figures: string[] = [];
  for (const size of SIZES) figures.push(...(await benchAt(size)));
  console.log(`\ncrm-sync reconciliation bench: SERVICE_API_MAX_RPS=${MAX_RPS}, RECONCILE_FULL_INTERVAL_SECONDS=${FULL_INTERVAL_SECONDS}`);
  for (const line of figures) console.log(line);
  return 0;
}

async function benchAt(size: number): Promise<string[]> {
  const databaseUrl = `${PG_BASE}/crm_sync_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const service = new ServiceSim();
  const crm = new AppointmentCrmSim();
  await Promise.all([service.start(), crm.start()]);
  service.addTemplate('Standard');
  const projects = Array.from({ length: size }, (_, i) => service.addProject({ name: `Bench project ${i}` }).id);
  const approved: string[] = [];
  projects.forEach((projectId, i) => {
    crm.addAppointment(`BENCH-${i}`);
    if (i % 10 !== 0) {
      service.addProposal({ project_id: projectId, status: 'PENDING' });
      return;
    }
    const drawing = service.addDrawing(projectId);
    const proposal = service.addProposal({ project_id: projectId, status: 'APPROVED', approved_option: { drawing_id: drawing.id } });
    service.addPayment(proposal.proposal_id, { paid_amount: 500, pay_channel: 'mark_as_paid', paid_date: '2026-11-01', payment_method: 'ACH' });
    approved.push(proposal.proposal_id);
  });
  const queuePrefix = `crm-sync-bench-${randomBytes(3).toString('hex')}`;
  const env = (maxRps: number): Record<string, string> => ({
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    ...service.daemonEnv(),
    SERVICE_API_MAX_RPS: String(maxRps),
    ...crm.daemonEnv(),
    WEBHOOK_SECRETS_EVENTS: 'bench-secret',
    ADMIN_TOKEN,
    // A key of its own, so the bench writes no key file into the checkout.
    CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
    RECONCILE_INTERVAL_SECONDS: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  let daemon: Daemon | undefined;
  let second: Daemon | undefined;
  const out: string[] = [];
  try {
    daemon = await startDaemon(env(5_000), { timeoutMs: 60_000 });
    await db.connect();
    await db.query(
      `INSERT INTO mapping (crm, appointment_id, project_id, status)
       SELECT 'appointment', 'BENCH-' || (i - 1), p, 'associated' FROM unnest($1::text[]) WITH ORDINALITY AS t (p, i)`,
      [projects],
    );
    const backfill = await pass(daemon, db, 'changes');
    await quiet(db);
    await daemon.stop('SIGTERM');

    daemon = await startDaemon(env(MAX_RPS), { timeoutMs: 60_000 });
    const label = `${n(size)} mapped projects:`;
    out.push(`${label} first changes pass (backfill, at a high cap): ${n(backfill.calls)} service calls, ${n(backfill.ms)} ms`);

    const idle = await pass(daemon, db, 'changes');
    out.push(`${label} changes pass, nothing changed: ${idle.calls} service calls, ${n(idle.ms)} ms`);

    // Ten older approved proposals get a payment whose webhook was lost (each moves to the top of R3).
    for (const proposalId of approved.slice(0, CHANGES)) {
      service.addPayment(proposalId, { paid_amount: 75, pay_channel: 'mark_as_paid', paid_date: '2026-11-22', payment_method: 'Check' });
    }
    const changed = await pass(daemon, db, 'changes');
    out.push(
      `${label} changes pass, ${CHANGES} changes: ${changed.calls} service calls, ${n(changed.ms)} ms (${/\d+ R3 page\(s\)/.exec(changed.detail)?.[0] ?? changed.detail} read)`,
    );

    const before = service.requests.length;
    const id = await start(daemon, 'full');
    const started = Date.now();
    await sleep(SAMPLE_SECONDS * 1000);
    const sample = await entry(db, id);
    const elapsedS = (Date.now() - started) / 1000;
    const done = sample.payload.done ?? 0;
    // The pass's own calls (its progress line counts them); the pushes it started make calls of their own.
    const calls = Number(/([\d,]+) service call/.exec(sample.detail ?? '')?.[1].replace(/,/g, '') ?? NaN);
    const all = service.requests.length - before;
    const perProject = calls / Math.max(1, done);
    const projectedS = (size * elapsedS) / Math.max(1, done);
    out.push(
      `${label} full pass (sampled ${SAMPLE_SECONDS} s, extrapolated): ${done} projects, ${calls} calls by the pass ` +
        `(${(calls / elapsedS).toFixed(1)}/s; ${all} with the pushes it started, cap ${MAX_RPS}/s), ` +
        `${perProject.toFixed(2)} calls per project; projected ${duration(projectedS)} for all ${n(size)} ` +
        `(${((100 * projectedS) / FULL_INTERVAL_SECONDS).toFixed(0)}% of RECONCILE_FULL_INTERVAL_SECONDS)`,
    );

    if (size === SIZES[0]) out.push(await twoReplicasAgainstOneCap(daemon, await startDaemon(env(MAX_RPS), { timeoutMs: 60_000 }).then((d) => (second = d))));
  } finally {
    await daemon?.stop('SIGKILL');
    await second?.stop('SIGKILL');
    await db.end().catch(() => undefined);
    await Promise.all([service.stop(), crm.stop()]);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
  return out;

  /**
   * The full pass still running on the first replica, and a drawing event for every project with a drawing sent to
   * both replicas in turn: each push reads the service, so both replicas call it at once. Counted on the simulator.
   */
  async function twoReplicasAgainstOneCap(a: Daemon, b: Daemon): Promise<string> {
    const since = Date.now();
    const drawings = [...service.drawings.keys()];
    await Promise.all(
      drawings.map((id, i) =>
        sender.deliverOnce(`${(i % 2 === 0 ? a : b).url}/webhooks/events`, events.drawingUpdated(service.drawingView(id)), { secret: 'bench-secret' }),
      ),
    );
    await sleep(TWO_REPLICAS_SECONDS * 1000);
    const times = service.requests.filter((r) => r.at >= since && r.path.startsWith('/v1/')).map((r) => r.at);
    return (
      `two replicas, one cap of ${MAX_RPS}/s (a full pass on one, ${drawings.length} drawing pushes spread over both, ${TWO_REPLICAS_SECONDS} s): ` +
      `${times.length} service calls, ${(times.length / TWO_REPLICAS_SECONDS).toFixed(1)}/s, at most ${service.maxApiRequestsInWindow(1000, since)} in any 1 s window`
    );
  }

  async function pass(d: Daemon, client: pg.Client, scope: 'changes' | 'full'): Promise<{ calls: number; ms: number; detail: string }> {
    const before = service.requests.length;
    const id = await start(d, scope);
    for (;;) {
      const e = await entry(client, id);
      if (e.status === 'failed' || e.status === 'skipped') throw new Error(`${scope} pass ${e.status}: ${e.detail}`);
      if (e.status === 'succeeded') return { calls: service.requests.length - before, ms: e.duration_ms ?? 0, detail: e.detail ?? '' };
      await sleep(20);
    }
  }
}

async function start(d: Daemon, scope: 'changes' | 'full'): Promise<string> {
  const res = await fetch(`${d.url}/api/reconcile`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scope }),
  });
  if (res.status !== 202) throw new Error(`POST /api/reconcile answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function entry(db: pg.Client, id: string): Promise<Entry> {
  const { rows } = await db.query<Entry>(`SELECT status, detail, payload, duration_ms FROM sync_log WHERE id = $1`, [id]);
  return rows[0];
}

/** Every action the backfill started has finished (the pushes of the approvals and payments it found). */
async function quiet(db: pg.Client): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE status IN ('queued', 'running')`);
    if (Number(rows[0].n) === 0) return;
    await sleep(200);
  }
  throw new Error('the backfill did not finish');
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(0)} s`;
  if (seconds < 7_200) return `${(seconds / 60).toFixed(0)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

process.exitCode = await main();
