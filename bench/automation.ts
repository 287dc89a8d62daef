/**
 * What the automations cost, against the built daemon as a child process at the default rate cap
 * (SERVICE_API_MAX_RPS=10): BENCH_RECORDS (1,000) qualifying appointments and as many Deals appear at once; a read of
 * each CRM is asked for (`POST /api/automations/:crm/run`, as Check now does) and the clock runs until every one is
 * a project, mapped and associated.
 *
 *   npm run bench:automation
 *
 * Prints, per CRM: the time until all are mapped projects; service calls per created project (goal at most 1.1,
 * plus the batched association, counted apart); the CRM's calls per new record (goal: one per page of records, plus
 * one per page of contacts for Zoho); the daemon's peak RSS; what an idle day of polling costs the appointment CRM
 * (reads with nothing changed, times 1,440 a day); and Zoho's idle day measured with everything that calls Zoho
 * (polls, connection checks, readiness, tokens) over an accelerated idle period (`zohoIdleDay`; goal: under 3 % of a
 * Standard edition's 50,000 daily credits with a 60 s poll, under 1 % with notifications, whose channel the daemon
 * makes, checks and renews, counted with the rest, the poll then a safety net; both days are measured,
 * BENCH_IDLE_NOTIFIED=0 or 1 measures one). BENCH_RECORDS=0 measures only Zoho's idle day. A CRM whose reader the
 * daemon does not have yet (its run route answers 404) is reported as not measured. The service simulator answers after
 * BENCH_SERVICE_LATENCY_MS (50). Needs Postgres and Redis (TEST_PG_URL, TEST_REDIS_URL); BENCH_REDIS_DB (13).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { dropDatabase } from '../src/database/ensure-database.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { ServiceSim } from '../sim/service/index.js';
import type { SimServer } from '../sim/common/sim-server.js';
import { ZohoSim } from '../sim/zoho/zoho-sim.js';
import { removeQueueKeys } from '../sim/daemon-env.js';
import { freePort, memoryOf, startDaemon, type Daemon } from './support.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000);
const LATENCY_MS = Number(process.env.BENCH_SERVICE_LATENCY_MS ?? 50);
const IDLE_READS = 5;
const READS_PER_DAY = 86_400 / 60;
const ZOHO_DAILY_CREDITS = 50_000;
const GOAL_SERVICE_CALLS = 1.1;
const GOAL_IDLE_SHARE = 0.03;
/** With notifications on, the poll is only the safety net, at a longer period (issue 31 item 7). */
const GOAL_IDLE_SHARE_NOTIFIED = 0.01;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 13);
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const OWNER = 'owner@example.com';
const TIMEOUT_MS = 30 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The records "appear at once" as a burst of edits a second apart, ending now (Zoho's times are to the second). */
const BURST_START = Date.now() - RECORDS * 1000;
const changedAt = (i: number) => new Date(BURST_START + i * 1000);
const n = (value: number) => value.toLocaleString('en-US');

type Crm = 'appointment' | 'record';
interface Side {
  crm: Crm;
  label: string;
  route: string;
  settings: Record<string, unknown>;
  sim: () => SimServer;
  /** The simulator's requests that are reads of changes (or of the contacts a page names). */
  isRead: (method: string, path: string) => boolean;
  seed: () => void;
}

async function main(): Promise<number> {
  const databaseUrl = `${PG_BASE}/crm_sync_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const service = new ServiceSim();
  const appointments = new AppointmentCrmSim();
  const zoho = new ZohoSim();
  await Promise.all([service.start(), appointments.start(), zoho.start()]);
  const queuePrefix = `crm-sync-bench-${randomBytes(3).toString('hex')}`;
  const sides: Side[] = [
    {
      crm: 'appointment',
      label: 'appointments',
      route: 'appointment-crm',
      // Creation reads from when it is turned on; the burst's edits are older, so the reads start before them.
      settings: { create_projects: true, statuses: ['Confirmed'], owner: OWNER, start_from: new Date(BURST_START - 1000).toISOString() },
      sim: () => appointments,
      isRead: (method, path) => method === 'GET' && /\/appointments$/.test(path),
      seed: () => {
        for (let i = 0; i < RECORDS; i++) {
          appointments.addAppointment(`BENCH-APT-${i}`, {
            status: 'Confirmed',
            job_number: `J-${i}`,
            customer: { name: `Customer ${i}`, email: `customer${i}@example.com`, address: { street: `${i} Main St`, city: 'Springfield', zip_code: '62701' } },
            sales_rep: { name: 'Sam Rep', email: 'sam@example.com' },
            updated_at: changedAt(i).toISOString(),
          } as never);
        }
      },
    },
    {
      crm: 'record',
      label: 'Deals',
      route: 'record-crm',
      settings: {
        create_projects: true,
        module: 'Deals',
        field: 'Stage',
        values: ['Qualification'],
        owner: OWNER,
        start_from: new Date(BURST_START - 1000).toISOString(),
      },
      sim: () => zoho.api,
      isRead: (method, path) => method === 'GET' && /\/crm\/v\d+\/(Deals|Contacts)$/.test(path),
      seed: () => {
        for (let i = 0; i < RECORDS; i++) {
          const contact = zoho.addRecord('Contacts', undefined, { Full_Name: `Contact ${i}`, Email: `contact${i}@example.com` }, changedAt(i));
          const fields = { Deal_Name: `Deal ${i}`, Stage: 'Qualification', Contact_Name: { id: contact, name: `Contact ${i}` } };
          zoho.addRecord('Deals', undefined, fields, changedAt(i));
        }
      },
    },
  ];

  const db = new pg.Client({ connectionString: databaseUrl });
  let daemon: Daemon | undefined;
  const lines: string[] = [];
  let met = true;
  try {
    daemon = await startDaemon(
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        QUEUE_PREFIX: queuePrefix,
        ...service.daemonEnv(),
        ...appointments.daemonEnv(),
        ...zoho.daemonEnv(),
        WEBHOOK_SECRETS_EVENTS: 'bench-secret',
        ADMIN_TOKEN,
        CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
        RECONCILE_INTERVAL_SECONDS: '0',
        // The bench asks for each read; the schedule's would only add reads to the counts.
        AUTOMATION_POLL_SECONDS: '0',
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      },
      { timeoutMs: 90_000 },
    );
    await db.connect();
    const d = daemon;
    const admin = async (path: string, method = 'GET', body?: unknown): Promise<Response> =>
      fetch(`${d.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const live: Side[] = [];
    for (const side of sides) {
      const saved = await admin(`/api/automations/${side.route}`, 'PUT', side.settings);
      if (saved.status !== 200) throw new Error(`${side.route} settings refused: ${saved.status} ${await saved.text()}`);
      // Off again until the records are there: the bench starts both reads together.
      const probe = await admin(`/api/automations/${side.route}/run`, 'POST');
      if (probe.status === 202) live.push(side);
      else lines.push(`${side.label}: not measured (POST /api/automations/${side.route}/run answered ${probe.status}: no reader of that CRM yet)`);
    }
    await quiet(db);

    service.latencyMs = LATENCY_MS;
    for (const side of live) side.seed();
    const serviceBefore = service.requests.length;
    const a2Before = service.calls.a2;
    const c1Before = service.calls.c1;
    const readsBefore = new Map(live.map((side) => [side.crm, readsOf(side)]));
    const started = Date.now();
    for (const side of live) await admin(`/api/automations/${side.route}/run`, 'POST');
    const done = new Map<Crm, number>();
    while (done.size < live.length) {
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`not every record was a mapped project after ${TIMEOUT_MS / 60_000} min`);
      for (const side of live) {
        if (done.has(side.crm)) continue;
        const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM mapping WHERE crm = $1 AND source = 'automation' AND status = 'associated'`, [
          side.crm,
        ]);
        if (Number(rows[0].n) >= RECORDS) done.set(side.crm, Date.now() - started);
      }
      await sleep(200);
    }
    await quiet(db);
    const peak = memoryOf(d.process.pid!).peakMiB;
    const created = service.requestsTo('POST', /\/projects$/).length;
    const serviceCalls = service.requests.length - serviceBefore;
    const a2 = service.calls.a2 - a2Before;
    const c1 = service.calls.c1 - c1Before;
    const perProject = (serviceCalls - a2 - c1) / Math.max(1, created);
    met &&= perProject <= GOAL_SERVICE_CALLS;
    lines.push(
      `service: ${n(serviceCalls)} calls for ${n(created)} projects created: ${perProject.toFixed(2)} per project (goal <= ${GOAL_SERVICE_CALLS}) ` +
        `plus the association: ${n(a2)} A2 call(s) (appointments, batched), ${n(c1)} C1 call(s) (Zoho records)`,
    );
    for (const side of live) {
      const reads = readsOf(side) - readsBefore.get(side.crm)!;
      lines.push(
        `${side.label}: ${n(RECORDS)} appeared at once, all mapped projects after ${(done.get(side.crm)! / 1000).toFixed(1)} s; ` +
          `${n(reads)} CRM reads, ${(reads / RECORDS).toFixed(3)} per new record`,
      );
    }
    lines.push(`daemon peak RSS: ${peak} MiB`);

    // An idle day: reads with nothing changed, counted, times the reads a day at the default period.
    for (const side of live) {
      const before = readsOf(side);
      for (let i = 0; i < IDLE_READS; i++) {
        const res = await admin(`/api/automations/${side.route}/run`, 'POST');
        const { id } = (await res.json()) as { id: string };
        await finished(db, id);
      }
      const perRead = (readsOf(side) - before) / IDLE_READS;
      const perDay = perRead * READS_PER_DAY;
      let goal = '';
      if (side.crm === 'record') {
        met &&= perDay / ZOHO_DAILY_CREDITS < GOAL_IDLE_SHARE;
        goal = ` = ${((100 * perDay) / ZOHO_DAILY_CREDITS).toFixed(2)} % of ${n(ZOHO_DAILY_CREDITS)} daily credits (goal < ${GOAL_IDLE_SHARE * 100} %)`;
      }
      lines.push(`${side.label}: an idle day of polling (every 60 s): ${perRead.toFixed(1)} call(s) a read, ${n(perDay)} calls a day${goal}`);
    }
  } catch (err) {
    console.error(`bench failed: ${(err as Error).message}`);
    console.error(`--- daemon output (last lines) ---\n${(daemon?.output() ?? '').split('\n').slice(-40).join('\n')}`);
    met = false;
  } finally {
    await db.end().catch(() => undefined);
    await daemon?.stop('SIGTERM');
    await Promise.all([service.stop(), appointments.stop(), zoho.stop()]);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
  console.log(`\ncrm-sync automation bench: ${n(RECORDS)} records per CRM, SERVICE_API_MAX_RPS=10 (default), service latency ${LATENCY_MS} ms`);
  for (const line of lines) console.log(line);
  console.log(met ? 'goals met' : 'GOALS MISSED');
  return met ? 0 : 1;
}

function readsOf(side: Side): number {
  return side.sim().requests.filter((r) => side.isRead(r.method, r.path)).length;
}

/** No action queued or running. */
async function quiet(db: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE status IN ('queued', 'running')`);
    if (Number(rows[0].n) === 0) return;
    await sleep(200);
  }
}

async function finished(db: pg.Client, id: string): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ status: string }>(`SELECT status FROM sync_log WHERE id = $1`, [id]);
    if (['succeeded', 'failed', 'skipped'].includes(rows[0]?.status)) return;
    await sleep(100);
  }
}

/**
 * Zoho's idle day, measured: a daemon of its own with every period divided by BENCH_IDLE_SPEEDUP (60; 240 for the
 * notified day, which runs 24 simulated hours to count the channel's renewals; the poll at
 * BENCH_IDLE_POLL_SECONDS, 60; the 15-minute connection check; the account recheck; the simulator's token lifetime;
 * with BENCH_IDLE_NOTIFIED=1, the notification channel's check, its lifetime and the notified poll's period),
 * its readiness probed as an orchestrator would, BENCH_IDLE_REPLICAS replicas on one Redis, one qualifying Deal already
 * read and sitting at the cursor, and nothing changing for BENCH_IDLE_HOURS simulated hours. The calls are the
 * daemon's own count (the day's total in Redis and `crm_sync_zoho_calls_total{kind}`), scaled to 24 hours.
 */
async function zohoIdleDay(notified: boolean): Promise<{ lines: string[]; met: boolean }> {
  const pollSeconds = Number(process.env.BENCH_IDLE_POLL_SECONDS ?? 60);
  // The notified day runs a whole day (faster), so that the channel's real renewals (a day's channel renewed at half
  // its life) fall inside it and are counted, not left out of a few hours.
  const speedup = Number(process.env.BENCH_IDLE_SPEEDUP ?? (notified ? 240 : 60));
  const hours = Number(process.env.BENCH_IDLE_HOURS ?? (notified ? 24 : 4));
  const replicas = Number(process.env.BENCH_IDLE_REPLICAS ?? 2);
  const notifiedPollSeconds = Number(process.env.AUTOMATION_NOTIFIED_POLL_SECONDS ?? 900);
  const goal = notified ? GOAL_IDLE_SHARE_NOTIFIED : GOAL_IDLE_SHARE;
  const scaled = (seconds: number) => String(Math.max(1, Math.round(seconds / speedup)));
  // Notifications need the daemon's public address: the first replica's, as a load balancer's would be.
  const firstPort = await freePort();
  const notifications: Record<string, string> = notified
    ? {
        PUBLIC_URL: `http://127.0.0.1:${firstPort}`,
        ZOHO_NOTIFICATION_CHECK_SECONDS: scaled(Number(process.env.ZOHO_NOTIFICATION_CHECK_SECONDS ?? 300)),
        ZOHO_NOTIFICATION_CHANNEL_MINUTES: String(Math.max(1, Math.round(1440 / speedup))),
        AUTOMATION_NOTIFIED_POLL_SECONDS: scaled(notifiedPollSeconds),
      }
    : {};
  const databaseUrl = `${PG_BASE}/crm_sync_bench_idle_${process.pid}_${randomBytes(3).toString('hex')}`;
  const queuePrefix = `crm-sync-bench-idle-${randomBytes(3).toString('hex')}`;
  const service = new ServiceSim();
  const zoho = new ZohoSim();
  zoho.tokenLifetimeSeconds = Math.max(10, Math.round(3600 / speedup));
  await Promise.all([service.start(), zoho.start()]);
  const redis = new Redis(REDIS_URL);
  const daemons: Daemon[] = [];
  const kinds = new Map<string, number>();
  try {
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      ...service.daemonEnv(),
      ...zoho.daemonEnv(),
      WEBHOOK_SECRETS_EVENTS: 'bench-secret',
      ADMIN_TOKEN,
      CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
      RECONCILE_INTERVAL_SECONDS: '0',
      AUTOMATION_POLL_SECONDS: scaled(pollSeconds),
      CONNECTION_CHECK_SECONDS: scaled(900),
      RECORD_CRM_ACCOUNT_RECHECK_SECONDS: scaled(Number(process.env.RECORD_CRM_ACCOUNT_RECHECK_SECONDS ?? 7_200)),
      ...notifications,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    };
    daemons.push(await startDaemon({ ...env, PORT: String(firstPort) }, { timeoutMs: 90_000 }));
    const admin = (path: string, method = 'GET', body?: unknown) =>
      fetch(`${daemons[0].url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // One qualifying Deal, edited before the automation starts reading: it is read, made a project, and stays the
    // last change seen (the cursor) for the whole idle period.
    const contact = zoho.addRecord('Contacts', undefined, { Full_Name: 'Idle Contact', Email: 'idle@example.com' }, new Date(Date.now() - 1000));
    zoho.addRecord(
      'Deals',
      undefined,
      { Deal_Name: 'Idle Deal', Stage: 'Qualification', Contact_Name: { id: contact, name: 'Idle Contact' } },
      new Date(Date.now() - 1000),
    );
    const saved = await admin('/api/automations/record-crm', 'PUT', {
      create_projects: true,
      module: 'Deals',
      field: 'Stage',
      values: ['Qualification'],
      owner: OWNER,
      start_from: new Date(Date.now() - 60_000).toISOString(),
    });
    if (saved.status !== 200) throw new Error(`record-crm settings refused: ${saved.status} ${await saved.text()}`);
    for (let i = 1; i < replicas; i++) daemons.push(await startDaemon(env, { timeoutMs: 90_000 }));
    // Settled: the Deal is a project, every replica has read what it reads at start.
    const settleUntil = Date.now() + 120_000;
    while (service.requestsTo('POST', /\/projects$/).length < 1 && Date.now() < settleUntil) await sleep(500);
    await sleep(3 * Number(scaled(pollSeconds)) * 1000);

    const dayKey = `${queuePrefix}:zoho-calls:${new Date().toISOString().slice(0, 10)}`;
    const before = Number((await redis.get(dayKey)) ?? 0);
    const kindsBefore = await callsByKind(daemons);
    const tokensBefore = zoho.accounts.requests.length;
    const watchCalls = (method: string) => zoho.api.requestsTo(method, '/crm/v8/actions/watch').length;
    const [patchesBefore, postsBefore] = [watchCalls('PATCH'), watchCalls('POST')];
    const realMs = (hours * 3600_000) / speedup;
    const started = Date.now();
    // Readiness probed on every replica every simulated minute, as an orchestrator's probe would (or more often).
    while (Date.now() - started < realMs) {
      await Promise.all(daemons.map((d) => fetch(`${d.url}/health/ready`).catch(() => undefined)));
      await sleep(60_000 / speedup);
    }
    const calls = Number((await redis.get(dayKey)) ?? 0) - before;
    const kindsAfter = await callsByKind(daemons);
    for (const [kind, count] of kindsAfter) kinds.set(kind, count - (kindsBefore.get(kind) ?? 0));
    const perDay = (calls * 24) / hours;
    // Zoho's credits are spent by "API calls in Zoho CRM" (API Limits page); token requests go to the accounts server.
    const credits = ((calls - (kinds.get('token') ?? 0)) * 24) / hours;
    const share = credits / ZOHO_DAILY_CREDITS;
    const tokens = ((zoho.accounts.requests.length - tokensBefore) * 24) / hours;
    const byKind = [...kinds].filter(([, c]) => c > 0).map(([kind, c]) => `${kind} ${n(Math.round((c * 24) / hours))}`);
    // The renewals as Zoho takes them: the simulator refuses a PATCH without channel_id, notify_url or events, so a
    // refused renewal shows as a channel made anew (or none left) and fails the day.
    const renewals = watchCalls('PATCH') - patchesBefore;
    const remade = watchCalls('POST') - postsBefore;
    const channelKept = !notified || (remade === 0 && zoho.notifications.live.length === 1);
    const renewalLine = notified
      ? [
          `Zoho notification channel: ${renewals} renewal(s) in ${hours} h (${((renewals * 24) / hours).toFixed(1)} a day), each taken by the simulator, ` +
            `which refuses a PATCH without channel_id, notify_url or events; made anew ${remade} time(s); ${channelKept ? 'alive' : 'NOT alive'} at the end`,
        ]
      : [];
    return {
      met: share < goal && channelKept,
      lines: [
        `Zoho: an idle day measured (${hours} h at ${speedup}x, ${replicas} replicas, readiness probed every minute, one qualifying Deal at the cursor), ` +
          `${notified ? `notifications on (channel checked every ${notifications.ZOHO_NOTIFICATION_CHECK_SECONDS} s x ${speedup}, poll every ${notifiedPollSeconds} s while they flow)` : `poll every ${pollSeconds} s`}, connection check every 900 s, account recheck ${env.RECORD_CRM_ACCOUNT_RECHECK_SECONDS} s x ${speedup}: ` +
          `${n(Math.round(perDay))} Zoho calls a day counted (${byKind.join(', ')}; the simulator saw ${n(Math.round(tokens))} token requests), ` +
          `${(100 * (perDay / ZOHO_DAILY_CREDITS)).toFixed(2)} % of ${n(ZOHO_DAILY_CREDITS)}; API credits (all but tokens) ${n(Math.round(credits))} ` +
          `= ${(100 * share).toFixed(2)} % of ${n(ZOHO_DAILY_CREDITS)} (goal < ${goal * 100} %)`,
        ...renewalLine,
      ],
    };
  } catch (err) {
    console.error(`idle bench failed: ${(err as Error).message}`);
    for (const d of daemons) console.error(`--- daemon output (last lines) ---\n${d.output().split('\n').slice(-40).join('\n')}`);
    return { met: false, lines: ['Zoho idle day: not measured (failed)'] };
  } finally {
    for (const d of daemons) await d.stop('SIGTERM');
    redis.disconnect();
    await Promise.all([service.stop(), zoho.stop()]);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
}

/** `crm_sync_zoho_calls_total{kind}` summed over the replicas' /metrics. */
async function callsByKind(daemons: Daemon[]): Promise<Map<string, number>> {
  const kinds = new Map<string, number>();
  for (const d of daemons) {
    const text = await (await fetch(`${d.url}/metrics`)).text();
    for (const match of text.matchAll(/^crm_sync_zoho_calls_total\{kind="([^"]+)"\} (\d+)/gm)) {
      kinds.set(match[1], (kinds.get(match[1]) ?? 0) + Number(match[2]));
    }
  }
  return kinds;
}

const burst = RECORDS > 0 ? await main() : 0;
// Both idle days unless BENCH_IDLE_NOTIFIED picks one (0: polling only, 1: notifications only).
const idleModes = process.env.BENCH_IDLE_NOTIFIED === '1' ? [true] : process.env.BENCH_IDLE_NOTIFIED === '0' ? [false] : [false, true];
let idleMet = true;
for (const notified of idleModes) {
  const idle = await zohoIdleDay(notified);
  for (const line of idle.lines) console.log(line);
  console.log(idle.met ? 'idle goal met' : 'IDLE GOAL MISSED');
  idleMet &&= idle.met;
}
process.exitCode = burst || (idleMet ? 0 : 1);
