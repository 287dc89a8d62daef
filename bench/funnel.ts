/**
 * What the funnel costs (`GET /api/funnel`, docs/operations.md "The funnel") over a sync log of 100,000 entries
 * (BENCH_ENTRIES), against the built daemon as a child process.
 *
 *   npm run bench:funnel
 *
 * The entries are spread evenly over the last 30 days, of both CRMs and every kind the funnel counts (one in ten an
 * approval with its total), with a year of the reads' hourly counts; the table is vacuumed and analysed, as
 * autovacuum leaves it. Each window (24h, 7d, 30d) is asked for RUNS times, one at a time; the figures are the time
 * to the whole answer, median and slowest. Needs Postgres and Redis (TEST_PG_URL, TEST_REDIS_URL, as the e2e tests).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase } from '../src/database/ensure-database.js';
import { ServiceSim } from '../test/sim/service/index.js';
import { removeQueueKeys } from '../test/support/harness.js';
import { startDaemon, type Daemon } from './support.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const RUNS = 7;
const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_DB = Number(process.env.BENCH_REDIS_DB ?? 14);
const REDIS_URL = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${REDIS_DB}`;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

const databaseUrl = `${PG_BASE}/crm_sync_bench_funnel_${randomBytes(3).toString('hex')}`;
const queuePrefix = `crm-sync-bench-${randomBytes(3).toString('hex')}`;
const service = new ServiceSim();
await service.start();
const db = new pg.Client({ connectionString: databaseUrl });
let daemon: Daemon | undefined;
try {
  daemon = await startDaemon(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      SERVICE_API_BASE_URL: service.apiBaseUrl,
      SERVICE_API_TOKEN: service.token,
      WEBHOOK_SECRETS_EVENTS: 'bench-secret',
      ADMIN_TOKEN,
      CONNECTIONS_KEY: '0123456789abcdef'.repeat(4),
      RECONCILE_INTERVAL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
    { timeoutMs: 60_000 },
  );
  await db.connect();
  const seeded = Date.now();
  // Kinds in the proportions of a busy deployment; every tenth entry of an approval's kind is an approval.
  await db.query(
    `INSERT INTO sync_log (kind, trigger, crm, target, status, payload, dedupe_key, created_at, updated_at)
     SELECT k.kind, 'webhook', k.crm, 'T' || i, CASE WHEN i % 40 = 0 THEN 'failed' ELSE 'succeeded' END,
            CASE WHEN (i / 10) % 10 = 0 THEN jsonb_build_object('proposal_id', i::text, 'proposalId', i::text, 'status', 'APPROVED', 'amount', (i % 9000 + 100)::text || '.50')
                 ELSE jsonb_build_object('drawing_id', i::text, 'drawingId', i::text) END,
            CASE WHEN (i / 10) % 10 = 0 AND k.kind = 'push_proposal_pdf' THEN 'appointment:approved:' || i
                 WHEN (i / 10) % 10 = 0 AND k.kind = 'attach_pdf' THEN 'record:approved:' || i END,
            now() - (i * interval '30 days' / $1), now() - (i * interval '30 days' / $1)
       FROM generate_series(1, $1) AS i
       JOIN LATERAL (SELECT (ARRAY['create_project', 'push_drawings', 'push_proposal_pdf', 'push_line_items', 'set_status',
                                   'create_project', 'attach_pdf', 'update_deal', 'push_quote', 'associate'])[1 + i % 10] AS kind,
                            (ARRAY['appointment', 'appointment', 'appointment', 'appointment', 'appointment',
                                   'record', 'record', 'record', 'record', 'record'])[1 + i % 10] AS crm) k ON true`,
    [ENTRIES],
  );
  await db.query(
    `INSERT INTO automation_read_hour (crm, hour, records_read, qualifying)
     SELECT crm, date_trunc('hour', now()) - h * interval '1 hour', 20, 3 FROM unnest(ARRAY['appointment', 'record']) AS crm, generate_series(0, 24 * 365) AS h`,
  );
  await db.query(`VACUUM ANALYZE sync_log`);
  await db.query(`VACUUM ANALYZE automation_read_hour`);
  console.log(`seeded ${ENTRIES.toLocaleString('en')} sync log entries over 30 days in ${Date.now() - seeded} ms`);

  for (const window of ['24h', '7d', '30d']) {
    const times: number[] = [];
    let approved = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const res = await fetch(`${daemon.url}/api/funnel?window=${window}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = (await res.json()) as { crms: Array<{ steps: Array<{ step: string; count: number }> }> };
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`GET /api/funnel answered ${res.status}`);
      approved = body.crms.reduce((n, c) => n + (c.steps.find((s) => s.step === 'approved')?.count ?? 0), 0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `GET /api/funnel?window=${window} at ${ENTRIES.toLocaleString('en')} entries: median ${times[RUNS >> 1].toFixed(0)} ms, slowest ${times[RUNS - 1].toFixed(0)} ms (${RUNS} runs; ${approved.toLocaleString('en')} approvals counted)`,
    );
  }
} finally {
  await db.end().catch(() => undefined);
  await daemon?.stop('SIGTERM');
  await service.stop();
  await dropDatabase(databaseUrl);
  await removeQueueKeys(REDIS_DB, queuePrefix);
}
