/** One run of the soak (bench/soak/main.ts runs several): set up, traffic and faults, settling, the invariants, the report. */
import pg from 'pg';
import { freePort } from '../support.js';
import { chaosLoop, faultLoop } from './chaos.js';
import { driftChecks, driftLoop, injectRemaining, waitForPasses, watchAutoHeals, watchHealsFromNowOn } from './drifts.js';
import { checkInvariants, settle, settleAutomations } from './invariants.js';
import { report } from './report.js';
import { FailedEntry, retryFailed, trafficLoop } from './traffic.js';
import {
  APPOINTMENT_CRM,
  QUALIFYING_STAGE,
  QUALIFYING_STATUS,
  REPLICAS,
  SECONDS,
  SEED,
  SETTLE_MS,
  ZOHO_SEARCH_LAG_MS,
  admin,
  appointmentCrm,
  background,
  cleanup,
  cluster,
  now,
  query,
  redis,
  replicas,
  sends,
  service,
  skus,
  sleep,
  startReplica,
  started,
  state,
  stats,
  zoho,
} from './world.js';
async function main(): Promise<number> {
  console.log(
    `crm-sync soak: ${SECONDS} s of traffic and faults, ${REPLICAS} replicas, seed ${SEED} (SOAK_SEED=${SEED} repeats the choices), Zoho's search ${ZOHO_SEARCH_LAG_MS / 1000} s behind its writes`,
  );
  console.log(`appointment CRM: ${appointmentCrm.label} (SOAK_APPOINTMENT_CRM=${APPOINTMENT_CRM})`);
  await cluster.init();
  await redis.start();
  await Promise.all([service.start(), appointmentCrm.start(), zoho.start()]);
  zoho.searchLagMs = ZOHO_SEARCH_LAG_MS;
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
  state.pool = new pg.Pool({ connectionString: `${cluster.url}/crm_sync`, max: 4 });
  state.pool.on('error', () => undefined);
  await watchHealsFromNowOn();
  console.log(`Postgres :${cluster.port}, Redis :${redis.port}, replicas ${replicas.map((r) => `:${r.port}`).join(' ')}; faults and traffic start`);

  const trafficStart = now();
  const until = trafficStart + SECONDS * 1000;
  state.faultsOn = true;
  const faults = faultLoop();
  const chaos = { done: false };
  const healWatch = { done: false };
  const watchingHeals = watchAutoHeals(healWatch);
  await Promise.all([
    trafficLoop(until, chaos),
    chaosLoop(until).finally(() => (chaos.done = true)),
    // People's edits once some approvals are pushed: from a third of the traffic on.
    driftLoop(trafficStart + (SECONDS * 1000) / 3, until, chaos),
  ]);
  state.faultsOn = false;
  await faults;
  appointmentCrm.clearFaults();
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
  // The kinds of drift no record was ready for during the faults, then a pass after each edit; anything a pass
  // recorded (a heal) settles too.
  await injectRemaining(now() + 60_000);
  await waitForPasses(now() + 90_000);
  settled = (await settle(now() + 60_000)) && settled;

  const { checks, figures } = await checkInvariants();
  if (!settled) checks.push({ name: 'settled before the deadline', problems: [`still busy after ${SETTLE_MS / 1000} s`] });
  healWatch.done = true;
  await watchingHeals;
  const drifts = await driftChecks();
  checks.push(...drifts.checks);

  return report({ checks, figures, drifts: drifts.figures, trafficMs, settleMs, failedBeforeRetry });
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
