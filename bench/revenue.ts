/**
 * What the revenue check costs, against the built daemon as a child process: 10,000 approved proposals, half on
 * appointments of the appointment CRM simulator, half on Zoho Deals, all as crm-sync wrote them an hour ago.
 *
 *   npm run bench:revenue        (BENCH_APPROVED=10000 to choose the size)
 *
 * The approvals and crm-sync's writes are seeded straight into the sync log and `deal_revenue` (the pushes are
 * another bench's), and the simulators hold what those writes left (the sale, Sold, the proposal file; the Deal's
 * Amount, Stage and Closing_Date, modified by crm-sync's user). Measured, with the calls each simulator received:
 *
 * - the first changes pass (no position yet: it reads every approved record, like a full pass);
 * - a changes pass with nothing changed;
 * - a changes pass after 1 % of the records were edited by a person (half appointments set back, half Deals' Amount
 *   lowered): every one must be found, and the calls grow with them, not with the 10,000;
 * - a full pass;
 * and the daemon's peak resident memory. Needs Postgres and Redis (TEST_PG_URL, TEST_REDIS_URL, as the e2e tests).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase } from '../src/database/ensure-database.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { removeQueueKeys } from '../sim/daemon-env.js';
import { ServiceSim } from '../sim/service/index.js';
import { ZohoSim } from '../sim/zoho/index.js';
import { memoryOf, startDaemon, type Daemon } from './support.js';

const APPROVED = Number(process.env.BENCH_APPROVED ?? 10_000);
const DRIFTED_PERCENT = 1;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 14);
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const n = (value: number) => value.toLocaleString('en-US');

interface Pass {
  appointmentCalls: number;
  zohoCalls: number;
  serviceCalls: number;
  ms: number;
  detail: string;
}

async function main(): Promise<number> {
  const databaseUrl = `${PG_BASE}/crm_sync_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const queuePrefix = `crm-sync-bench-${randomBytes(3).toString('hex')}`;
  const service = new ServiceSim();
  const crm = new AppointmentCrmSim();
  const zoho = new ZohoSim();
  await Promise.all([service.start(), crm.start(), zoho.start()]);
  const db = new pg.Client({ connectionString: databaseUrl });
  let daemon: Daemon | undefined;
  const out: string[] = [];
  try {
    daemon = await startDaemon(
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        QUEUE_PREFIX: queuePrefix,
        ...service.daemonEnv(),
        // The check's D2 reads (one per compared sale) are the service's calls: not what is measured here.
        SERVICE_API_MAX_RPS: '2000',
        ...crm.daemonEnv(),
        ...zoho.daemonEnv(),
        ADMIN_TOKEN,
        CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
        RECONCILE_INTERVAL_SECONDS: '0',
        AUTOMATION_POLL_SECONDS: '0',
        ZOHO_NOTIFICATION_CHECK_SECONDS: '0',
        REVENUE_CHECK_INTERVAL_SECONDS: '0',
        REVENUE_CHECK_FULL_INTERVAL_SECONDS: '0',
        REVENUE_CHECK_CALL_BUDGET: String(4 * APPROVED),
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      },
      { timeoutMs: 90_000 },
    );
    await db.connect();
    const seeded = await seed(service, crm, zoho, db);
    out.push(`${n(APPROVED)} approved proposals: ${n(seeded.appointments.length)} on appointments, ${n(seeded.deals.length)} on Zoho Deals`);

    const first = await pass(daemon, db, 'changes');
    out.push(line('first changes pass (no position yet: every record)', first));
    const idle = await pass(daemon, db, 'changes');
    out.push(line('changes pass, nothing changed', idle));

    // 1 %: half appointments set back by a person, half Deals' Amount lowered by a rep.
    const drifted = Math.round((APPROVED * DRIFTED_PERCENT) / 100);
    for (const id of seeded.appointments.slice(0, drifted / 2)) crm.personEdits(id, { status: 'Confirmed' });
    for (const id of seeded.deals.slice(0, drifted / 2)) zoho.revenue.editByHand('Deals', id, { Amount: 1 });
    const changed = await pass(daemon, db, 'changes');
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM revenue_drift WHERE state = 'open'`);
    out.push(line(`changes pass, ${drifted} records edited (${drifted / 2} appointments, ${drifted / 2} Deals)`, changed) + `; open drifts ${rows[0].n}`);
    if (Number(rows[0].n) !== drifted) throw new Error(`found ${rows[0].n} drifts, ${drifted} were made`);

    const full = await pass(daemon, db, 'full');
    out.push(line('full pass', full));
    const memory = memoryOf(daemon.process.pid!);
    out.push(`daemon memory: peak ${memory.peakMiB} MiB resident, ${memory.rssMiB} MiB now`);
  } finally {
    await daemon?.stop('SIGKILL');
    await db.end().catch(() => undefined);
    await Promise.all([service.stop(), crm.stop(), zoho.stop()]);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await removeQueueKeys(REDIS_DB, queuePrefix).catch(() => undefined);
  }
  console.log(`\ncrm-sync revenue check bench (REVENUE_CHECK_CALL_BUDGET=${4 * APPROVED})`);
  for (const l of out) console.log(l);
  return 0;

  async function pass(d: Daemon, client: pg.Client, scope: 'changes' | 'full'): Promise<Pass> {
    const before = { a: crm.requests.length, z: zoho.api.requests.length, s: service.requests.length };
    const res = await fetch(`${d.url}/api/revenue/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope }),
    });
    if (res.status !== 202) throw new Error(`POST /api/revenue/check answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    for (;;) {
      const { rows } = await client.query<{ status: string; detail: string | null; error: string | null; duration_ms: number | null }>(
        `SELECT status, detail, error, duration_ms FROM sync_log WHERE id = $1`,
        [id],
      );
      const e = rows[0];
      if (e.status === 'failed' || e.status === 'skipped') throw new Error(`${scope} pass ${e.status}: ${e.detail ?? e.error}`);
      if (e.status === 'succeeded') {
        return {
          appointmentCalls: crm.requests.length - before.a,
          zohoCalls: zoho.api.requests.filter((r, i) => i >= before.z && r.path.startsWith('/crm/v8/')).length,
          serviceCalls: service.requests.length - before.s,
          ms: e.duration_ms ?? 0,
          detail: e.detail ?? '',
        };
      }
      await sleep(50);
    }
  }
}

function line(what: string, p: Pass): string {
  return `${what}: appointment CRM ${n(p.appointmentCalls)} calls, Zoho ${n(p.zohoCalls)} calls, service ${n(p.serviceCalls)} calls, ${n(p.ms)} ms`;
}

/** The approvals as crm-sync pushed them an hour ago: the sync log's entries, deal_revenue, and the simulators' records. */
async function seed(service: ServiceSim, crm: AppointmentCrmSim, zoho: ZohoSim, db: pg.Client) {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const written = new Date(hourAgo.getTime() + 1000);
  const apiUser = { name: zoho.account.fullName, id: zoho.account.userId, email: zoho.account.email };
  const appointments: string[] = [];
  const deals: string[] = [];
  const entries: unknown[][] = [];
  const dealRows: unknown[][] = [];
  for (let i = 0; i < APPROVED; i++) {
    const project = service.addProject({ name: `Bench ${i}` });
    const drawing = service.addDrawing(project.id);
    const version = drawing.versions[0];
    const total = version.lineItems.total;
    const amount = total.toFixed(2);
    const proposalId = String(900_000_000_000 + i);
    if (i % 2 === 0) {
      const id = `BENCH-${i}`;
      crm.addAppointment(id, {
        status: 'Sold',
        updated_at: hourAgo.toISOString(),
        updated_by: crm.apiKeyUser,
        sale: { items: version.lineItems.line_items, total, drawing_id: drawing.id, drawing_version_id: version.versionId },
        saleChanged: { updated_at: hourAgo.toISOString(), updated_by: crm.apiKeyUser },
        files: [
          {
            id: `f-${i}`,
            name: `proposal-${proposalId}.pdf`,
            category: 'proposal',
            size: 5,
            contentType: 'application/pdf',
            bytes: Buffer.from('%PDF-'),
            uploadedAt: 0,
          },
        ],
      });
      appointments.push(id);
      const approval = {
        pdf_url: `https://files.example.com/p-${i}.pdf`,
        proposal_id: proposalId,
        drawing_id: drawing.id,
        drawing_version_id: version.versionId,
        amount,
      };
      entries.push(['push_proposal_pdf', 'appointment', project.id, id, approval, `appointment:approved:${proposalId}`]);
      entries.push(['push_line_items', 'appointment', project.id, id, { drawing_id: drawing.id, drawing_version_id: version.versionId, amount }, null]);
      entries.push(['set_status', 'appointment', project.id, id, { status: 'Sold', amount }, null]);
    } else {
      const closing = hourAgo.toISOString().slice(0, 10);
      const dealId = zoho.addRecord(
        'Deals',
        undefined,
        { Deal_Name: `Bench ${i}`, Amount: Number(amount), Stage: 'Closed Won', Closing_Date: closing },
        hourAgo,
        apiUser,
      );
      deals.push(dealId);
      const payload = { module: 'Deals', recordId: dealId, proposalId, status: 'APPROVED', amount, closingDate: closing };
      entries.push(['update_deal', 'record', project.id, `Deals/${dealId}`, payload, `record:deal:${proposalId}:APPROVED:${amount}`]);
      dealRows.push([dealId, project.id, proposalId, amount, 'Closed Won', closing]);
    }
  }
  for (let at = 0; at < entries.length; at += 5000) {
    const chunk = entries.slice(at, at + 5000);
    await db.query(
      `INSERT INTO sync_log (kind, trigger, crm, project_id, target, status, payload, dedupe_key, created_at, updated_at, started_at, finished_at)
       SELECT k, 'webhook', c, p, t, 'succeeded', pl::jsonb, NULLIF(d, ''), $7, $7, $7, $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x (k, c, p, t, pl, d)`,
      [
        chunk.map((e) => e[0]),
        chunk.map((e) => e[1]),
        chunk.map((e) => e[2]),
        chunk.map((e) => e[3]),
        chunk.map((e) => JSON.stringify(e[4])),
        chunk.map((e) => e[5] ?? ''),
        written,
      ],
    );
  }
  const { rows } = await db.query<{ id: string; target: string }>(`SELECT id::text, target FROM sync_log WHERE kind = 'update_deal'`);
  const entryOf = new Map(rows.map((r) => [r.target, r.id]));
  await db.query(
    `INSERT INTO deal_revenue (deal_id, project_id, proposal_id, amount, stage, closing_date, entry_id, written_at)
     SELECT d, p, pr, a, s, c, e::bigint, $8 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x (d, p, pr, a, s, c, e)`,
    [
      dealRows.map((r) => r[0]),
      dealRows.map((r) => r[1]),
      dealRows.map((r) => r[2]),
      dealRows.map((r) => r[3]),
      dealRows.map((r) => r[4]),
      dealRows.map((r) => r[5]),
      dealRows.map((r) => entryOf.get(`Deals/${String(r[0])}`)),
      written,
    ],
  );
  return { appointments, deals };
}

process.exitCode = await main();
