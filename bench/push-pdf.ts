/**
 * Pushes a 50 MB proposal PDF through the built daemon, run as a child process, and reports how much its memory
 * rose: the PDF must stream from the download into the upload (limit: under 20 MB). Needs Postgres and Redis
 * (TEST_PG_URL, TEST_REDIS_URL, as the e2e tests). Run: npm run bench:push-pdf
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { dropDatabase } from '../src/database/ensure-database.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { ServiceSim, WebhookSender, events } from '../sim/service/index.js';
import { removeQueueKeys } from '../sim/daemon-env.js';
import { memoryOf, startDaemon } from './support.js';

const SIZE = 50 * 1024 * 1024;
const LIMIT = 20 * 1024 * 1024;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 11);
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const SECRET = 'bench-events-secret';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const MiB = 1024 * 1024;

/** Resets VmHWM to the current RSS, so the next reading is the peak of what follows (Linux: clear_refs 5). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The daemon's own view of its memory (its /metrics): V8 heap committed and used, and memory outside the heap. */
async function heapOf(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^crm_sync_${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return `heap ${mb(value('nodejs_heap_size_total_bytes'))} committed / ${mb(value('nodejs_heap_size_used_bytes'))} used, external ${mb(value('nodejs_external_memory_bytes'))}`;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  const service = new ServiceSim();
  const crm = new AppointmentCrmSim();
  await service.start();
  await crm.start();
  // The db is shared with the e2e tests: the run's keys live under a prefix of its own, removed at the end.
  const queuePrefix = `crm-sync-bench-${randomBytes(4).toString('hex')}`;
  const databaseUrl = `${PG_BASE}/crm_sync_bench_${randomBytes(4).toString('hex')}`;
  const daemon = await startDaemon(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      ...service.daemonEnv(),
      WEBHOOK_SECRETS_EVENTS: SECRET,
      ADMIN_TOKEN: 'bench-admin-token-0123456789',
      ...crm.daemonEnv(),
      RECONCILE_INTERVAL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
    { timeoutMs: 60_000 },
  );
  const pid = daemon.process.pid!;
  try {
    const project = service.addProject();
    service.addDrawing(project.id);
    const appointmentId = '36029621652695999';
    crm.addAppointment(appointmentId);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO mapping (crm, appointment_id, project_id, status) VALUES ('appointment', $1, $2, 'associated')`, [appointmentId, project.id]);
    await db.end();

    const sender = new WebhookSender();
    /** An approval whose signed PDF is `pdfBytes` long, streamed by the simulator; resolves once it is on the appointment. */
    const approve = async (pdfBytes: number) => {
      crm.get(appointmentId)!.status = 'Scheduled';
      const proposal = service.addProposal({ project_id: project.id, status: 'APPROVED', pdf_url: service.serveGeneratedFile(pdfBytes) });
      const res = await sender.deliverOnce(`${daemon.url}/webhooks/events`, events.proposalStatusChanged(proposal), { secret: SECRET });
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${res.body}`);
      const started = Date.now();
      const name = `proposal-${proposal.proposal_id}.pdf`;
      await until(`the ${mb(pdfBytes)} PDF to arrive`, () => crm.filesOf(appointmentId, 'proposal').find((f) => f.name === name && f.size === pdfBytes));
      await until('Sold', () => crm.get(appointmentId)!.status === 'Sold');
      return Date.now() - started;
    };

    await approve(MiB); // warm-up: every code path loaded before the baseline
    await sleep(1_000);
    // 50 MB twice, then 100 MB (the cap): memory must neither rise by the PDF's size nor grow with it.
    const rises: number[] = [];
    for (const size of [SIZE, SIZE, 2 * SIZE]) {
      const peakReset = resetPeak(pid);
      const before = memoryOf(pid);
      const heapBefore = await heapOf(daemon.url);
      const ms = await approve(size);
      const after = memoryOf(pid);
      console.log(`  before: ${heapBefore}\n  after:  ${await heapOf(daemon.url)}`);
      const rise = (after.peakMiB - (peakReset ? before.rssMiB : before.peakMiB)) * MiB;
      rises.push(rise);
      console.log(
        `${mb(size)} PDF pushed in ${ms} ms; daemon RSS before ${before.rssMiB} MB, peak during ${after.peakMiB} MB` +
          `${peakReset ? '' : ' (peak since start: VmHWM not resettable)'}, after ${after.rssMiB} MB; rise ${mb(rise)}`,
      );
    }
    const worst = Math.max(...rises);
    console.log(`largest rise of the daemon's memory during a push: +${mb(worst)}`);
    console.log(worst < LIMIT ? `OK: streamed (limit ${mb(LIMIT)})` : `FAIL: over the limit of ${mb(LIMIT)}`);
    process.exitCode = worst < LIMIT ? 0 : 1;
  } finally {
    await daemon.stop();
    await Promise.all([service.stop(), crm.stop()]);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
}

await main();
