/**
 * Jest's order of the test files (jest.config.js): the longest first, so that no long file starts last and runs
 * alone while the other worker has nothing left. Jest orders by the times it recorded in its cache, but a fresh
 * clone (CI) has none, and it then orders by file size, which knows nothing of a short file that starts the daemon
 * ten times. A file without a recorded time is given an estimate: the files known to be slow (the slowest of the last
 * runs, from the report of scripts/jest-slowest-files.mjs) first, then the e2e files by size, then the unit files.
 * A file that failed last time still runs first, as Jest does.
 */
import Sequencer from '@jest/test-sequencer';
import { statSync } from 'node:fs';
import { relative } from 'node:path';

/** The slowest files of CI's last runs (seconds on a quiet 2-core machine), longest first. */
const KNOWN_SLOW = [
  'test/resilience/fast-recovery.e2e-spec.ts',
  'test/record-crm/record-crm.e2e-spec.ts',
  'test/resilience/first-start.e2e-spec.ts',
  'test/operations/alerts.e2e-spec.ts',
  'test/mappings/reconcile-passes.e2e-spec.ts',
  'test/appointment-crm/appointment-crm-faults.e2e-spec.ts',
  'test/webhooks/webhooks.e2e-spec.ts',
  'test/console/console-automations.e2e-spec.ts',
  'test/console/console-connections.e2e-spec.ts',
];

export default class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const estimate = new Map(tests.map((test) => [test.path, this.time(test) ?? this.estimate(test)]));
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return estimate.get(b.path) - estimate.get(a.path);
    });
  }

  /**
   * Milliseconds a file without a recorded time is taken to last, on the scale of the recorded ones: a known slow file
   * a minute, an e2e file 10 s and a second per 10 kB, a unit file a second per 10 kB.
   */
  estimate(test) {
    const path = relative(test.context.config.rootDir, test.path);
    const known = KNOWN_SLOW.indexOf(path);
    if (known >= 0) return 60_000 - known;
    const size = statSync(test.path).size;
    return (path.endsWith('.e2e-spec.ts') ? 10_000 : 0) + size / 10;
  }
}
