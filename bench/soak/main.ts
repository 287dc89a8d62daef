/**
 * Soak test: three replicas of the built daemon, a Postgres cluster and a Redis of the soak's own, the simulators
 * with faults, realistic traffic for SOAK_SECONDS (default 300), crashes, outages and lost locks at random moments;
 * then it lets everything settle and checks the invariants (see docs/guarantees.md). Exit code 1 names each invariant
 * that failed. Both CRMs' automations are on: appointments and Deals appear and are edited during the faults, and each
 * one that qualified must end with exactly one project. Revenue is on too (line items as Quotes, with a fallback
 * product): an approved proposal of a Deal-mapped project must end as the Deal's Amount and Stage, and as exactly one
 * Quote.
 *
 *   npm run soak                      SOAK_SECONDS=60 npm run soak:ci                SOAK_RUNS=10 npm run soak:ci
 *
 * Knobs: SOAK_APPOINTMENT_CRM (`rest`, the default, or `salesforce`: an improveit 360 org with crm-sync pushing;
 * appointment-crm.ts), SOAK_SECONDS, SOAK_SEED (the random choices; printed), SOAK_RUNS (runs in a row, each with a seed of its own,
 * the first SOAK_SEED when set; each reported, then a table of them), SOAK_SETTLE_SECONDS (deadline of the settling,
 * 300), SOAK_RECOVERY_GOAL_SECONDS (set: a crash whose work resumes later than that fails the run; unset: 10 s, only named), SOAK_ZOHO_SEARCH_LAG_SECONDS (how long
 * a record Zoho wrote is not found by its search, 30), SOAK_KEEP=1 (keep the
 * temporary folder with the replicas' and Postgres' logs).
 *
 * The parts: world.ts (knobs, servers, replicas, shared records), appointment-crm.ts (the appointment CRM's seam),
 * traffic.ts, chaos.ts (faults and crashes), invariants.ts and appointment-invariants.ts, report.ts, run.ts (one run).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunSummary } from './report.js';

const RUNS = Math.max(1, Number(process.env.SOAK_RUNS ?? 1));

if (RUNS === 1) {
  await import('./run.js');
} else {
  process.exit(await series(RUNS));
}

/** Runs the soak `runs` times in a row, each in a process of its own, and prints a line per run. */
async function series(runs: number): Promise<number> {
  const first = process.env.SOAK_SEED ? Number(process.env.SOAK_SEED) : null;
  const dir = mkdtempSync(join(tmpdir(), 'crm-sync-soak-runs-'));
  const results: Array<{ run: number; seed: number; code: number | null; summary: RunSummary | null; seconds: number }> = [];
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stopping = true));
  for (let run = 1; run <= runs && !stopping; run++) {
    const seed = first !== null ? first + run - 1 : Math.floor(Math.random() * 1e9);
    const resultFile = join(dir, `run-${run}.json`);
    console.log(`\n==== soak run ${run} of ${runs}, seed ${seed} ====`);
    const start = Date.now();
    const child = spawn(process.execPath, [fileURLToPath(new URL('./run.js', import.meta.url))], {
      env: { ...process.env, SOAK_RUNS: '1', SOAK_SEED: String(seed), SOAK_RESULT: resultFile },
      stdio: 'inherit',
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    let summary: RunSummary | null = null;
    try {
      summary = JSON.parse(readFileSync(resultFile, 'utf8')) as RunSummary;
    } catch {
      // the run ended before its report (it failed to set up, or was stopped)
    }
    results.push({ run, seed, code, summary, seconds: Math.round((Date.now() - start) / 1000) });
  }
  rmSync(dir, { recursive: true, force: true });

  console.log(`\n==== ${results.length} soak run(s) ====`);
  console.log('run  seed        result  lost  doubled  pushes  drifts found  recovery max  slowest crash kind           time');
  for (const r of results) {
    const s = r.summary;
    const times = s?.recoveries.filter((x) => x.ms !== null) ?? [];
    const slowest = times.reduce<{ kind: string; ms: number | null } | null>((a, b) => (a === null || b.ms! > a.ms! ? b : a), null);
    console.log(
      [
        String(r.run).padEnd(4),
        String(r.seed).padEnd(11),
        (r.code === 0 ? 'ok' : 'FAIL').padEnd(7),
        String(s?.lost ?? '?').padEnd(5),
        String(s?.doubled ?? '?').padEnd(8),
        String(s?.pushes ?? '?').padEnd(7),
        `${s?.driftsFound ?? '?'}/${s?.driftsInjected ?? '?'}`.padEnd(13),
        (slowest ? `${(slowest.ms! / 1000).toFixed(1)} s` : '-').padEnd(13),
        (slowest?.kind ?? '-').padEnd(28),
        `${r.seconds} s`,
      ].join(' '),
    );
    if (s && s.failedChecks.length > 0) console.log(`     failed: ${s.failedChecks.join('; ')}`);
  }
  const kinds = [...new Set(results.flatMap((r) => r.summary?.recoveries.map((x) => x.kind) ?? []))];
  for (const kind of kinds) {
    const times = results.flatMap((r) => r.summary?.recoveries.filter((x) => x.kind === kind && x.ms !== null).map((x) => x.ms!) ?? []);
    if (times.length > 0) console.log(`recovery of ${kind}: ${times.length} crash(es), max ${(Math.max(...times) / 1000).toFixed(1)} s`);
  }
  return results.every((r) => r.code === 0) && results.length === runs ? 0 : 1;
}
