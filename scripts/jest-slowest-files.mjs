/**
 * A Jest reporter (jest.config.js): at the end of a run of several files, the ten that took longest, each with its
 * lane and its number of tests, so that a file that grows slow is seen in every `npm test` and in CI's log.
 */
import { relative } from 'node:path';

export default class SlowestFilesReporter {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.count = options.count ?? 10;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((file) => !file.skipped && file.perfStats.end > 0)
      .map((file) => ({
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
        path: relative(this.rootDir, file.testFilePath),
        lane: file.displayName?.name ?? '',
        tests: file.numPassingTests + file.numFailingTests,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, this.count);
    if (files.length < 2) return;
    const lines = files.map(({ seconds, path, lane, tests }) => `${seconds.toFixed(1).padStart(7)} s  ${lane.padEnd(4)} ${path} (${tests} tests)`);
    process.stderr.write(`\nThe ${files.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}
