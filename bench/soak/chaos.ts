/** The soak's faults: random CRM faults, crashes of replicas, Postgres and Redis, a CRM outage. */
import { Redis } from 'ioredis';
import type { Fault, SimServer } from '../../sim/common/sim-server.js';
import { ACTION_QUEUES } from '../../src/queues/queues.js';
import { retryFailed } from './traffic.js';
import {
  FAULTS_PER_SECOND,
  LOCK_LOSSES_PER_SECOND,
  HTTP_TIMEOUT_MS,
  OUTAGE_BODY,
  QUEUE_PREFIX,
  RECOVERY_GOAL_MS,
  SECONDS,
  UPLOAD_TIMEOUT_MS,
  admin,
  appointmentCrm,
  background,
  chance,
  cluster,
  live,
  now,
  outages,
  pick,
  query,
  random,
  redis,
  resumptions,
  sleep,
  startReplica,
  started,
  state,
  stats,
  zoho,
} from './world.js';
// ---- faults ---------------------------------------------------------------------------------------------------------

export type Crm = 'appointment' | 'zoho';
export const crmServer = (crm: Crm): SimServer => (crm === 'appointment' ? appointmentCrm.server : zoho.api);
let outageOf: Crm | null = null;

export function randomFault(crm: Crm): Fault {
  const uploads = crm === 'appointment' ? appointmentCrm.uploads : /\/Attachments$/;
  switch (pick(['5xx', '429', 'timeout', 'reset', 'slow upload'] as const)) {
    case '5xx':
      return { times: 1, status: pick([500, 502, 503]) };
    case '429':
      return crm === 'appointment' ? appointmentCrm.rateLimitFault() : { times: 1, status: 429, retryAfterSeconds: 1 };
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
 * waits before looking for it (docs/guarantees.md). An upload, or a write the adapter finds again: Zoho's note or a
 * Quote's create (found by its Subject before another is made); the appointment CRM's, as its seam names them.
 */
export function writeTimeout(crm: Crm, uploads: RegExp): Fault {
  const found = crm === 'zoho' ? [/\/Notes$/, /\/Quotes$/] : appointmentCrm.lateWritesFound;
  return found.length > 0 && chance(0.5)
    ? { times: 1, method: 'POST', path: pick(found), delayMs: HTTP_TIMEOUT_MS + 1_000 }
    : { times: 1, method: 'POST', path: uploads, delayMs: UPLOAD_TIMEOUT_MS + 1_000 };
}

export function faultKind(fault: Fault): string {
  if (fault.body === OUTAGE_BODY) return 'outage 503';
  if (fault.dropConnection) return 'connection reset';
  if (fault.status === 429) return '429 Retry-After';
  if (fault.status === 403) return '403 REQUEST_LIMIT_EXCEEDED';
  if (fault.status) return '5xx';
  if (fault.method === 'GET') return 'time-out';
  return (fault.delayMs ?? 0) > HTTP_TIMEOUT_MS ? 'write time-out' : 'slow upload';
}

/** How often the Salesforce org ends every session (INVALID_SESSION_ID on the next call of each replica). */
const SESSION_ENDS_PER_SECOND = 1 / 30;
/** Every run ends the sessions at least once, this long into its faults (at random alone, a run may see none). */
const FIRST_SESSION_END_AFTER_MS = 15_000;

export async function faultLoop(): Promise<void> {
  const firstSessionEndAt = Date.now() + FIRST_SESSION_END_AFTER_MS;
  let sessionsEnded = false;
  while (state.faultsOn) {
    for (const crm of ['appointment', 'zoho'] as const) {
      const server = crmServer(crm);
      const pending = state.injected - appointmentCrm.server.faultsHit.length - zoho.api.faultsHit.length;
      if (outageOf !== crm && pending < 4 && chance(FAULTS_PER_SECOND / 5)) {
        server.injectFault(randomFault(crm));
        state.injected++;
      }
    }
    if (chance(LOCK_LOSSES_PER_SECOND / 5)) void loseLocks();
    // The org ends every session (its timeout) now and then: each replica takes a new token, one refresh (and, the
    // org rotating refresh tokens, one rotation) for all of them.
    const sessionsDue = chance(SESSION_ENDS_PER_SECOND / 5) || (!sessionsEnded && Date.now() >= firstSessionEndAt);
    if (appointmentCrm.endSessions && outageOf !== 'appointment' && sessionsDue) {
      appointmentCrm.endSessions();
      sessionsEnded = true;
    }
    await sleep(200);
  }
}

/**
 * Ends every session holding an advisory lock (`pg_terminate_backend`), as a Postgres restart or a cut network would
 * end one: the work under the lock must stop before its next write to a CRM, or be right without it
 * (docs/guarantees.md, "When a lock is lost").
 */
async function loseLocks(): Promise<void> {
  const rows = await state
    .pool!.query<{ pid: number }>(
      `SELECT pid, pg_terminate_backend(pid) FROM (SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()) AS holders`,
    )
    .then((r) => r.rows)
    .catch(() => []);
  stats.locksLost += rows.length;
}

interface RunningEntry {
  id: string;
  kind: string;
  crm: string;
  target: string | null;
  attempts: number;
  error: string | null;
  started_at: Date;
}

/**
 * An injected fault that struck a request about the entry's own record (its id in the path or the body) since its run
 * started: a write time-out alone holds a run for twice the time-out, so its time is the fault's, not the crash's.
 */
function faultOnItsRecord(entry: RunningEntry): string | null {
  const recordId = entry.target?.split('/').pop();
  if (!recordId) return null;
  const server = entry.crm === 'record' ? zoho.api : appointmentCrm.server;
  const hit = server.faultsHit.find((h) => h.at >= entry.started_at.getTime() && (h.path.includes(recordId) || h.body.includes(recordId)));
  return hit ? `${faultKind(hit.fault)} on ${hit.method} ${hit.path} ${((hit.at - entry.started_at.getTime()) / 1000).toFixed(1)} s into its run` : null;
}

/**
 * Entries running when a crash happens (a replica's: those it ran, `only`); the crash's work has resumed when each has
 * finished or started again, watched from the crash on (`after`, the restart, runs meanwhile). A crash with nothing
 * running (`idle`), or whose running entries were all slowed by faults of their own (a server's restart only), is
 * measured to the first entry started after it that finished: new work gets done again.
 */
export async function crash(kind: string, act: () => Promise<void>, after: () => Promise<void>, only?: string[]): Promise<void> {
  stats.crashes[kind] = (stats.crashes[kind] ?? 0) + 1;
  const running = (await query<{ id: string; attempts: number }>(`SELECT id, attempts FROM sync_log WHERE status = 'running'`)).filter(
    (r) => !only || only.includes(r.id),
  );
  const at = now();
  console.log(`  ${((at - started) / 1000).toFixed(0).padStart(4)} s  ${kind} (${running.length} action(s) running)`);
  await act();
  // The restart of what crashed goes on beside the watch: a killed replica's work resumes on the others, and its own
  // start (up to a minute on a loaded machine) must not count. Waiting for it first added its start time to each measure.
  background.add(after());
  const watching = (async () => {
    const deadline = at + 180_000;
    const slow: string[] = [];
    const excused = new Map<string, string>();
    while (now() < deadline) {
      const stillRunning = running.length
        ? await query<RunningEntry>(
            `SELECT id, kind, crm, target, attempts, error, started_at FROM sync_log WHERE id = ANY($1::bigint[]) AND status = 'running' AND started_at <= to_timestamp($2 / 1000.0)`,
            [running.map((r) => r.id), at],
          )
        : [];
      // A crash that leaves the process running an entry alive (a server's restart) leaves its work to go on: an
      // entry a fault of its own record slowed takes the fault's time, not the crash's. A killed replica's entries
      // are never excused: they must start again elsewhere.
      const waiting = stillRunning.filter((entry) => {
        const fault = only ? null : faultOnItsRecord(entry);
        if (fault) excused.set(entry.id, `#${entry.id} ${entry.kind} ${entry.target}: ${fault}`);
        return !fault;
      });
      // With nothing (else) to wait for, what is measured is the time until the cluster finishes work again: an entry
      // started after the crash reaching its end (traffic goes on all the while).
      const newWorkDone =
        (running.length > 0 && excused.size === 0) ||
        (await query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE started_at > to_timestamp($1 / 1000.0) AND finished_at IS NOT NULL`, [at]))[0]
          .n !== '0';
      if (waiting.length === 0 && newWorkDone) {
        resumptions.push({ kind, ms: now() - at, slow, idle: running.length === 0, excused: [...excused.values()] });
        return;
      }
      if (slow.length === 0 && now() - at > RECOVERY_GOAL_MS) {
        slow.push(...waiting.map((r) => JSON.stringify({ id: r.id, kind: r.kind, crm: r.crm, target: r.target, attempts: r.attempts, error: r.error })));
        if (waiting.length === 0) slow.push('no entry started after the crash has finished');
      }
      await sleep(100);
    }
    resumptions.push({ kind, ms: null, slow, idle: running.length === 0, excused: [...excused.values()] });
  })();
  background.add(watching);
}

/**
 * The entries a replica is running: the action jobs active in Redis that its worker took (BullMQ writes the worker's
 * name, `<host>:<pid>`, in the job's `pb` field). A replica's crash is measured on its own work: the entries the other
 * replicas run meanwhile are not its to resume, and one of them in a slow CRM's retries would count as a slow recovery.
 */
async function entriesRunBy(pid: number): Promise<string[]> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    const ids: string[] = [];
    for (const queue of ACTION_QUEUES) {
      for (const jobId of await client.lrange(`${QUEUE_PREFIX}:${queue}:active`, 0, -1)) {
        const [by, data] = await client.hmget(`${QUEUE_PREFIX}:${queue}:${jobId}`, 'pb', 'data');
        if (by?.endsWith(`:${pid}`) && data) ids.push(String((JSON.parse(data) as { entryId: string }).entryId));
      }
    }
    return ids;
  } finally {
    client.disconnect();
  }
}

export async function killReplica(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const replica = pick(live());
  if (!replica) return;
  await crash(
    `replica ${signal}`,
    () => replica.daemon!.stop(signal),
    async () => {
      await sleep(1_000 + random() * 2_000);
      await startReplica(replica);
    },
    await entriesRunBy(replica.daemon!.process.pid!),
  );
}

/** Stops a server the replicas need and starts it again 2 s later; the time it was away is an outage of `what`. */
export async function restartServer(kind: string, what: string, stop: () => Promise<void>, start: () => Promise<void>): Promise<void> {
  await crash(kind, stop, async () => {
    const from = now();
    await sleep(2_000);
    await start();
    outages.push({ from, to: now(), what });
  });
}

export const restartPostgres = () =>
  restartServer(
    'Postgres restart',
    'postgres',
    () => cluster.stop('fast'),
    () => cluster.start(),
  );
export const restartRedis = () =>
  restartServer(
    'Redis restart',
    'redis',
    () => redis.stop(),
    () => redis.start(),
  );

export async function flushRedis(): Promise<void> {
  await crash(
    'Redis FLUSHALL',
    () => redis.flushAll(),
    async () => undefined,
  );
}

/** The appointment CRM answers 503 to everything for longer than an action's tries last; then a reconciliation. */
export async function crmOutage(crm: Crm, seconds: number): Promise<void> {
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
export async function chaosLoop(until: number): Promise<void> {
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
