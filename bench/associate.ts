/**
 * Benchmark of mapping import and association, against the built daemon as a child process.
 *
 *   npm run bench:associate
 *
 * The service simulator answers every call after 50 ms; the daemon runs with SERVICE_API_MAX_RPS=50 on its own
 * database and Redis db 15 (under a queue prefix of its own, the db is shared). 10,000 projects are seeded in the simulator, 10,000 appointment mappings imported by
 * CSV, and their association started with POST /api/mappings/associate; the run ends when every mapping is
 * `associated`. Prints the import and association wall times, the number of A2 calls and the daemon's peak RSS.
 * Goals: under 10 s in total, under 300 MB. Exit code 1 when a goal is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';
import { dropDatabase } from '../src/database/ensure-database.js';
import { DAEMON_ENTRY } from './support.js';
import { ServiceSim } from '../sim/service/index.js';
import { removeQueueKeys } from '../sim/daemon-env.js';

const N = Number(process.env.BENCH_MAPPINGS ?? 10_000);
const LATENCY_MS = 50;
const MAX_RPS = 50;
const REDIS_DB = 15;
const GOAL_TOTAL_MS = 10_000;
const GOAL_RSS_MB = 300;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = 'bench-admin-token';
const HEADER = 'crm,appointment_id,record_crm_module,record_crm_record_id,project_id';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function main(): Promise<number> {
  const databaseUrl = `${PG_BASE}/crm_sync_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  // The db is shared with the e2e tests: the run's keys live under a prefix of its own, removed at the end.
  const queuePrefix = `crm-sync-bench-${randomBytes(4).toString('hex')}`;

  const sim = new ServiceSim();
  await sim.start();
  const projects: string[] = [];
  for (let i = 0; i < N; i++) projects.push(sim.addProject({ name: `Bench project ${i}` }).id);
  sim.latencyMs = LATENCY_MS;

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const childLog: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [DAEMON_ENTRY], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: `${REDIS_BASE}/${REDIS_DB}`,
      QUEUE_PREFIX: queuePrefix,
      ...sim.daemonEnv(),
      SERVICE_API_MAX_RPS: String(MAX_RPS),
      WEBHOOK_SECRETS_EVENTS: 'bench-secret',
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_SECONDS: '0',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    childLog.push(chunk.toString('utf8'));
    if (childLog.length > 200) childLog.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));

  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers ?? {}) } });
  const db = new pg.Client({ connectionString: databaseUrl });
  let code = 0;
  try {
    await waitUntil(async () => !exited && (await fetch(`${base}/health/ready`)).status === 200, 60_000, 'the daemon to be ready', 100);
    await db.connect();

    const csv = [HEADER, ...projects.map((projectId, i) => `appointment,BENCH-APT-${i},,,${projectId}`)].join('\n');
    const importStart = performance.now();
    const imported = (await (await admin('/api/mappings/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv })).json()) as {
      created: number;
      errors: number;
    };
    const importMs = performance.now() - importStart;
    if (imported.created !== N) throw new Error(`import created ${imported.created} of ${N} (${imported.errors} errors)`);

    const a2Before = sim.calls.a2;
    const associateStart = performance.now();
    const started = (await (await admin('/api/mappings/associate', { method: 'POST' })).json()) as { sync_log_ids: string[] };
    const triggerMs = performance.now() - associateStart;
    await waitUntil(
      async () => {
        const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM mapping WHERE status <> 'associated'`);
        return Number(rows[0].n) === 0;
      },
      120_000,
      'every mapping to be associated',
      25,
    );
    const associateMs = performance.now() - associateStart;
    const rssMb = peakRssMb(child.pid!);
    const a2Calls = sim.calls.a2 - a2Before;
    const totalMs = importMs + associateMs;

    const row = (label: string, value: string) => console.log(`${label.padEnd(34)} ${value}`);
    console.log(`\ncrm-sync association bench: ${N} appointment mappings, service latency ${LATENCY_MS} ms, SERVICE_API_MAX_RPS=${MAX_RPS}`);
    row('CSV import', `${importMs.toFixed(0)} ms`);
    row('associate trigger (202 answer)', `${triggerMs.toFixed(0)} ms, ${started.sync_log_ids.length} actions`);
    row('association until all associated', `${associateMs.toFixed(0)} ms`);
    row('total', `${totalMs.toFixed(0)} ms (goal < ${GOAL_TOTAL_MS} ms)`);
    row('A2 calls', `${a2Calls} (minimum ${Math.ceil(N / 100)})`);
    row('daemon peak RSS (VmHWM)', `${rssMb} MB (goal < ${GOAL_RSS_MB} MB)`);
    const met = totalMs < GOAL_TOTAL_MS && rssMb < GOAL_RSS_MB && sim.appointmentAssociations.size === N;
    console.log(met ? 'goals met' : 'GOALS MISSED');
    code = met ? 0 : 1;
  } catch (err) {
    console.error(`bench failed: ${(err as Error).message}`);
    console.error(`--- daemon output (last lines) ---\n${childLog.join('').split('\n').slice(-40).join('\n')}`);
    code = 1;
  } finally {
    await db.end().catch(() => undefined);
    if (!exited) {
      child.kill('SIGTERM');
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5_000)]);
      if (!exited) child.kill('SIGKILL');
    }
    await sim.stop();
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
  return code;
}

process.exitCode = await main();
