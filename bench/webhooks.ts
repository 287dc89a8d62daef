import autocannon from 'autocannon';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '../sim/service/webhook-sender.js';
import { ServiceSim } from '../sim/service/service-sim.js';
import { baseEnv, removeQueueKeys, uniqueDatabaseUrl } from '../sim/daemon-env.js';
import { dropDatabase } from '../src/database/ensure-database.js';
import { startDaemon } from './support.js';

/**
 * Signed deliveries at the daemon's events webhook (each body unique, so each is accepted and stored), next to the
 * same load on a bare Node server that only verifies the signature (bare-verifier.ts): the ceiling of this machine.
 * Each server runs in a process of its own; the load generator runs here. The two are measured in rounds, one right
 * after the other, and the ratio is the median of the rounds': a shared machine's speed drifts by a fifth within
 * minutes, and a ratio of two runs taken apart would measure the drift. Beside it, the daemon's CPU time per delivery
 * (its process.cpuUsage, which prom-client publishes at /metrics), which moves less with the machine than requests/s:
 * per stored delivery during the load (intake, and the routing done alongside), and per routed delivery once the load
 * has ended (routing alone, in the last round).
 */
const SECRET = 'bench-secret';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
/** Load before the measured run, so both servers are measured with their code compiled (JIT), as they run in service. */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/** The run's keys live under a queue prefix of its own (baseEnv), removed at the end: the db is shared, never flushed. */
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 15);
/** How long the routing of the backlog is awaited once the load ends (0: not awaited). */
const DRAIN_LIMIT_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 180);
/** BENCH_BARE=0 skips the bare verifier, to compare daemon builds quickly. */
const WITH_BARE = process.env.BENCH_BARE !== '0';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

let counter = 0;
function setupRequest(request: { body?: string; headers?: Record<string, string> }) {
  counter++;
  const body = `{"event":"project.updated","data":{"id":"${36029621652695017n + BigInt(counter)}","name":"Bench ${counter}","tags":[],"source":"web"}}`;
  return { ...request, body, headers: { 'content-type': 'application/json', 'service-signature': signWebhook(SECRET, body) } };
}

/** `measured` is called around the measured run (after the warm-up): before, then after. */
async function load(url: string, measured: () => Promise<void> = async () => undefined) {
  const run = (duration: number) => autocannon({ url, method: 'POST', connections: CONNECTIONS, duration, requests: [{ setupRequest }] as never });
  if (WARMUP > 0) await run(WARMUP);
  await measured();
  const result = await run(DURATION);
  await measured();
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function bareVerifier() {
  const child = spawn(process.execPath, [resolve(dirname(fileURLToPath(import.meta.url)), 'bare-verifier.js')], {
    env: { ...process.env, BARE_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<string>((done, fail) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const listening = /listening (\d+)/.exec(chunk.toString());
        if (listening) done(listening[1]);
      });
      child.once('exit', (code) => fail(new Error(`the bare verifier exited with ${code}`)));
    });
    return await load(`http://127.0.0.1:${port}/`);
  } finally {
    child.kill();
  }
}

async function daemon(awaitRouting: boolean) {
  const service = new ServiceSim();
  await service.start();
  const databaseUrl = uniqueDatabaseUrl();
  const env: Record<string, string> = { ...baseEnv(service, databaseUrl, REDIS_DB), WEBHOOK_SECRETS_EVENTS: SECRET, LOG_LEVEL: 'warn' };
  const d = await startDaemon(env);
  try {
    const marks: Array<{ cpu: number } & Deliveries> = [];
    const mark = async () => void marks.push({ cpu: await daemonCpuSeconds(d.url), ...(await deliveries(databaseUrl)) });
    const figures = await load(`${d.url}/webhooks/events`, mark);
    const [start, end] = marks;
    const stored = end.stored - start.stored;
    const intake = { stored, routed: end.routed - start.routed, cpuPerStoredUs: ((end.cpu - start.cpu) * 1e6) / Math.max(stored, 1) };
    const unrouted = end.stored - end.routed;
    const drainSeconds = awaitRouting ? await secondsToRouteAll(databaseUrl) : null;
    let routing: { routed: number; cpuPerRoutedUs: number } | null = null;
    if (drainSeconds !== null) {
      const drained = { cpu: await daemonCpuSeconds(d.url), ...(await deliveries(databaseUrl)) };
      const routed = drained.routed - end.routed;
      routing = { routed, cpuPerRoutedUs: ((drained.cpu - end.cpu) * 1e6) / Math.max(routed, 1) };
    }
    return { ...figures, intake, routing, unrouted, drainSeconds };
  } finally {
    await d.stop();
    await service.stop();
    await dropDatabase(databaseUrl);
    await removeQueueKeys(REDIS_DB, env.QUEUE_PREFIX);
  }
}

/** Seconds until every stored delivery is routed (null past the limit). */
async function secondsToRouteAll(databaseUrl: string): Promise<number | null> {
  const started = Date.now();
  if (DRAIN_LIMIT_SECONDS === 0) return null;
  while (Date.now() - started < DRAIN_LIMIT_SECONDS * 1000) {
    if ((await unroutedDeliveries(databaseUrl)) === 0) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

/** Stored deliveries not yet routed when the load ends: shows whether routing kept pace with intake. */
async function unroutedDeliveries(databaseUrl: string): Promise<number> {
  const { stored, routed } = await deliveries(databaseUrl);
  return stored - routed;
}

interface Deliveries {
  stored: number;
  routed: number;
}

/** Deliveries stored so far, and of them those routed (no longer `received`). */
async function deliveries(databaseUrl: string): Promise<Deliveries> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT count(*)::int AS stored, (count(*) FILTER (WHERE status <> 'received'))::int AS routed FROM webhook_inbox`);
    return rows[0] as Deliveries;
  } finally {
    await client.end();
  }
}

/** The daemon's CPU time so far (user and system, process.cpuUsage), as prom-client's default metrics publish it. */
async function daemonCpuSeconds(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const cpu = /^crm_sync_process_cpu_seconds_total (\S+)$/m.exec(metrics);
  if (!cpu) throw new Error('the daemon published no crm_sync_process_cpu_seconds_total at /metrics');
  return Number(cpu[1]);
}

type Figures = Awaited<ReturnType<typeof load>>;
const row = (name: string, f: Figures) =>
  `${name.padEnd(22)} ${String(f.rps).padStart(8)} req/s   p50 ${f.p50} ms   p99 ${f.p99} ms   non-2xx ${f.non2xx}   errors ${f.errors}`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`\nwebhook intake, ${CONNECTIONS} connections, ${DURATION} s each after ${WARMUP} s of warm-up, loopback, ${ROUNDS} round(s)`);
const rounds: Array<{ bare: Figures | null; full: Awaited<ReturnType<typeof daemon>> }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const bare = WITH_BARE ? await bareVerifier() : null;
  const full = await daemon(round === ROUNDS);
  rounds.push({ bare, full });
  console.log(`round ${round}`);
  if (bare) console.log(row('  bare signature check', bare));
  console.log(row('  crm-sync (stored)', full));
  if (bare) console.log(`  ratio ${(full.rps / bare.rps).toFixed(2)}`);
  console.log(
    `  CPU ${Math.round(full.intake.cpuPerStoredUs)} µs per stored delivery (${full.intake.stored} stored, ${full.intake.routed} routed alongside)` +
      (full.routing ? `; ${Math.round(full.routing.cpuPerRoutedUs)} µs per routed delivery after the load (${full.routing.routed} routed)` : ''),
  );
}
const last = rounds[rounds.length - 1].full;
const drained =
  DRAIN_LIMIT_SECONDS === 0
    ? 'routing not awaited'
    : last.drainSeconds === null
      ? `not all routed within ${DRAIN_LIMIT_SECONDS} s`
      : `all routed ${last.drainSeconds.toFixed(1)} s later (${Math.round(last.unrouted / Math.max(last.drainSeconds, 0.001))}/s)`;
console.log(`stored but not yet routed when the last round's load ended: ${last.unrouted}; ${drained}`);
const medianOf = (pick: (r: (typeof rounds)[number]) => number | undefined) => median(rounds.map(pick).filter((v): v is number => v !== undefined));
console.log(`median of ${ROUNDS}: crm-sync ${medianOf((r) => r.full.rps)} req/s, p99 ${medianOf((r) => r.full.p99)} ms`);
if (WITH_BARE) {
  const ratios = rounds.map((r) => r.full.rps / r.bare!.rps);
  console.log(`ratio: ${median(ratios).toFixed(2)} of the bare verifier's requests/s (median; rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
}
console.log(
  `daemon CPU per stored delivery: ${Math.round(medianOf((r) => r.full.intake.cpuPerStoredUs))} µs (median of the rounds; intake and the routing done alongside)` +
    (last.routing ? `; per routed delivery: ${Math.round(last.routing.cpuPerRoutedUs)} µs (routing alone, after the last round's load)` : ''),
);
