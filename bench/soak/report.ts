/** What a run of the soak prints, and the summary it leaves for a series of runs (SOAK_RESULT). */
import { writeFileSync } from 'node:fs';
import type { Fault } from '../../sim/common/sim-server.js';
import { faultKind } from './chaos.js';
import type { DriftFigures } from './drifts.js';
import type { Check } from './check.js';
import type { Figures } from './invariants.js';
import { FailedEntry, failures } from './traffic.js';
import { OUTAGE_BODY, RECOVERY_GOAL_MS, SEED, appointmentCrm, automated, projects, query, replicas, resumptions, stats, zoho } from './world.js';

export interface RunSummary {
  seed: number;
  trafficSeconds: number;
  lost: number;
  doubled: number;
  pushes: number;
  /** Each crash's kind and its crash-to-resumption time (null: not resumed). */
  recoveries: Array<{ kind: string; ms: number | null }>;
  failedChecks: string[];
  /** People's edits injected, and found by the first revenue check pass after each. */
  driftsInjected?: number;
  driftsFound?: number;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

export async function report(run: {
  checks: Check[];
  figures: Figures;
  trafficMs: number;
  settleMs: number;
  failedBeforeRetry: FailedEntry[];
  drifts: DriftFigures;
}): Promise<number> {
  const { checks, figures, trafficMs, settleMs, failedBeforeRetry, drifts } = run;
  const faultCounts = (hits: Array<{ fault: Fault }>) => {
    const counts = new Map<string, number>();
    for (const hit of hits) counts.set(faultKind(hit.fault), (counts.get(faultKind(hit.fault)) ?? 0) + 1);
    return [...counts].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  };
  const [outcomes] = await query<{ succeeded: string; skipped: string; failed: string; total: string }>(
    `SELECT count(*) FILTER (WHERE status = 'succeeded') AS succeeded, count(*) FILTER (WHERE status = 'skipped') AS skipped,
            count(*) FILTER (WHERE status = 'failed') AS failed, count(*) AS total FROM sync_log`,
  );
  const [inbox] = await query<{ n: string; duplicates: string }>(`SELECT count(*) AS n, coalesce(sum(duplicates), 0) AS duplicates FROM webhook_inbox`);
  const resumed = resumptions.filter((r) => r.ms !== null).map((r) => r.ms!);

  const row = (label: string, value: string) => console.log(`${label.padEnd(38)} ${value}`);
  console.log(
    `\nsoak figures (seed ${SEED}, appointment CRM ${appointmentCrm.label}, ${(trafficMs / 1000).toFixed(0)} s of traffic, settled in ${(settleMs / 1000).toFixed(0)} s)`,
  );
  row(
    'projects mapped',
    `${projects.length} (${projects.filter((p) => p.crm === 'appointment').length} appointment, ${projects.filter((p) => p.crm === 'record').length} Zoho)`,
  );
  for (const crm of ['appointment', 'record'] as const) {
    const mine = [...automated.values()].filter((a) => a.crm === crm);
    row(
      crm === 'appointment' ? 'appointments for the automation' : 'Deals for the automation',
      `${mine.length} added, ${mine.filter((a) => a.qualified).length} qualified`,
    );
  }
  row('automation records', `${stats.automationEdits} edits; ${figures.projectsCreated} projects created`);
  row('webhooks sent', `${stats.webhooks}: ${stats.delivered} answered 2xx, ${stats.undelivered} given up, ${stats.attempts} attempts`);
  row('inbox', `${inbox.n} deliveries stored, ${inbox.duplicates} re-deliveries answered duplicate`);
  row('sync log', `${outcomes.total} entries: ${outcomes.succeeded} succeeded, ${outcomes.skipped} skipped, ${outcomes.failed} failed`);
  const byOutage = [...failures.values()].filter((e) => e.error?.includes(OUTAGE_BODY.error)).length;
  row(
    'failed entries',
    `${failures.size} failures seen before admin retries (${byOutage} ran out of tries in the outage), ${failedBeforeRetry.length} failed when the faults had stopped`,
  );
  row('admin', `${stats.adminCalls} calls, ${stats.adminRetries} entries retried, ${stats.reconciles} reconciliations`);
  row('faults hit in the appointment CRM', faultCounts(appointmentCrm.server.faultsHit));
  row('faults hit in Zoho', faultCounts(zoho.api.faultsHit));
  if (appointmentCrm.orgEvents)
    row(
      'appointment CRM events',
      Object.entries(appointmentCrm.orgEvents)
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
    );
  row(
    'crashes',
    Object.entries(stats.crashes)
      .map(([k, n]) => `${k} ${n}`)
      .join(', '),
  );
  row('locks lost', `${stats.locksLost} session(s) holding an advisory lock terminated`);
  row('pushes checked in the CRMs', String(figures.pushes));
  row('revenue checked in Zoho', `${figures.dealApprovals} Deals approved (Amount, Stage), ${figures.quotes} Quotes (one per drawing, Grand_Total)`);
  const [passes] = await query<{ changes: string; full: string; failed: string }>(
    `SELECT count(*) FILTER (WHERE status = 'succeeded' AND coalesce(payload->>'scope', 'changes') = 'changes') AS changes,
            count(*) FILTER (WHERE status = 'succeeded' AND payload->>'scope' = 'full') AS full,
            count(*) FILTER (WHERE status = 'failed') AS failed FROM sync_log WHERE kind = 'revenue_check'`,
  );
  const [driftRows] = await query<{ n: string; open: string; healed: string }>(
    `SELECT count(*) AS n, count(*) FILTER (WHERE state = 'open') AS open, count(*) FILTER (WHERE state = 'healed') AS healed FROM revenue_drift`,
  );
  row('revenue check passes', `${passes.changes} changes, ${passes.full} full succeeded (${passes.failed} left failed)`);
  row(
    'drifts injected (people’s edits)',
    `${drifts.injected}, ${drifts.found} found by the first pass after the edit; ${drifts.autoHeals} auto-heal(s) of crm-sync's own writes` +
      (drifts.autoHeals > 0
        ? ` (${Object.entries(drifts.autoHealKinds)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')})`
        : '') +
      '; ' +
      `${driftRows.n} drift row(s) in all (${driftRows.open} open, ${driftRows.healed} healed)`,
  );
  for (const k of drifts.byKind) {
    const delays = k.delays.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ');
    row(
      `  ${k.kind}`,
      k.injected === 0
        ? 'none injected'
        : `${k.injected} injected (${k.during.join(', ')}), ${k.found} found by the first pass after it${delays ? `: edit to drift ${delays}` : ''}` +
            (k.passes.some((n) => n !== 1) ? `; by pass ${k.passes.join(', ')}` : ''),
    );
  }
  row('lost', String(figures.lost));
  row('doubled', String(figures.doubled));
  if (figures.appointmentNotesDoubledByLimit > 0) row('appointment notes doubled (documented limit)', String(figures.appointmentNotesDoubledByLimit));
  row(
    'crash to resumption of its work',
    resumed.length > 0
      ? `p50 ${(percentile(resumed, 0.5) / 1000).toFixed(1)} s, max ${(Math.max(...resumed) / 1000).toFixed(1)} s over ${resumed.length} crashes` +
          (resumed.length < resumptions.length ? `; ${resumptions.length - resumed.length} never resumed` : '')
      : 'none measured',
  );
  for (const r of resumptions) {
    row(`  ${r.kind}`, (r.ms === null ? 'not resumed within 180 s' : `${(r.ms / 1000).toFixed(1)} s`) + (r.idle ? ' (nothing running: to new work done)' : ''));
    for (const entry of r.slow) console.log(`      still running after ${RECOVERY_GOAL_MS / 1000} s: ${entry}`);
    for (const entry of r.excused) console.log(`      not counted, slowed by a fault of its own: ${entry}`);
  }
  for (const kind of [...new Set(resumptions.map((r) => r.kind))]) {
    const times = resumptions.filter((r) => r.kind === kind && r.ms !== null).map((r) => r.ms!);
    if (times.length > 0) row(`  max of ${kind}`, `${(Math.max(...times) / 1000).toFixed(1)} s over ${times.length}`);
  }
  if (resumed.length < resumptions.length) checks.push({ name: "every crash's work resumed", problems: ['see above'] });
  const slow = resumptions.filter((r) => r.ms !== null && r.ms > RECOVERY_GOAL_MS).map((r) => `${r.kind}: ${(r.ms! / 1000).toFixed(1)} s`);
  // Enforced when asked (SOAK_RECOVERY_GOAL_SECONDS set): the goal is not met on every run yet (docs/guarantees.md, Recovery).
  if (process.env.SOAK_RECOVERY_GOAL_SECONDS) checks.push({ name: `every crash's work resumed within ${RECOVERY_GOAL_MS / 1000} s`, problems: slow });
  else if (slow.length > 0) console.log(`\nrecovery goal (${RECOVERY_GOAL_MS / 1000} s) missed, not enforced: ${slow.join('; ')}`);

  const failedChecks = checks.filter((c) => c.problems.length > 0);
  console.log('');
  for (const check of checks) {
    console.log(`${check.problems.length === 0 ? 'ok  ' : 'FAIL'} ${check.name}`);
    for (const problem of check.problems.slice(0, 20)) console.log(`       ${problem}`);
    if (check.problems.length > 20) console.log(`       … and ${check.problems.length - 20} more`);
  }
  if (failedChecks.length > 0) {
    console.log(`\nINVARIANTS FAILED: ${failedChecks.map((c) => c.name).join('; ')}`);
    if (drifts.autoHealLines.length > 0) console.log(`auto-heals:\n  ${drifts.autoHealLines.slice(0, 40).join('\n  ')}`);
    for (const replica of replicas) {
      const lines = (replica.log + (replica.daemon?.output() ?? '')).split('\n').filter((l) => /"level":(50|60)/.test(l));
      if (lines.length) console.log(`--- replica ${replica.index}: ${lines.length} error line(s), last:\n${lines.slice(-5).join('\n')}`);
    }
  } else console.log('\nall invariants hold');
  const summary: RunSummary = {
    seed: SEED,
    trafficSeconds: Math.round(trafficMs / 1000),
    lost: figures.lost,
    doubled: figures.doubled,
    pushes: figures.pushes,
    recoveries: resumptions.map((r) => ({ kind: r.kind, ms: r.ms })),
    failedChecks: failedChecks.map((c) => c.name),
    driftsInjected: drifts.injected,
    driftsFound: drifts.found,
  };
  if (process.env.SOAK_RESULT) writeFileSync(process.env.SOAK_RESULT, JSON.stringify(summary));
  return failedChecks.length > 0 ? 1 : 0;
}
