/**
 * Jest runs the TypeScript sources as native ES modules (Nest 12 ships ESM only), compiled by SWC with decorator
 * metadata. A few CommonJS dependencies require() packages that ship ESM only, which Jest's own module loader cannot
 * do; those packages are compiled to CommonJS for the test run (the built daemon needs none of this: Node.js does
 * require(esm) natively).
 *
 * Two lanes (Jest projects), run together by `npm test` or alone with `--selectProjects`:
 * - unit: `src/**\/*.spec.ts`, in-process only, no Postgres, Redis or build (`npm run test:unit`);
 * - e2e: `test/**\/*.e2e-spec.ts`, the real app on Postgres and Redis, some starting the built daemon from dist/
 *   (`npm run test:e2e` builds first).
 */
import { fileURLToPath } from 'node:url';

const ESM_ONLY_REQUIRED_FROM_CJS = ['content-disposition'];

const swc = (moduleType) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: moduleType },
  },
];

const esmOnly = ESM_ONLY_REQUIRED_FROM_CJS.join('|');

const rootDir = fileURLToPath(new URL('.', import.meta.url));

/** What both lanes share: ESM, the SWC transforms and the CommonJS workaround above. */
const lane = {
  rootDir,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    [`node_modules/(${esmOnly})/.+\\.js$`]: swc('commonjs'),
    '^.+\\.ts$': swc('es6'),
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly})/)`],
  testTimeout: 30000,
};

export default {
  projects: [
    { ...lane, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...lane, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker's heap grows with every file it runs (each file's ES modules stay behind); one of 500 MB and more, asked
  // to stop at the end of a run on a loaded machine, took longer than the 500 ms Jest waits and was force exited ("a
  // worker process has failed to exit gracefully"). Past 500 MB after a file, the worker is replaced by a fresh one.
  workerIdleMemoryLimit: '500MB',
  // Jest's own report, then the ten slowest files (scripts/jest-slowest-files.mjs).
  reporters: ['default', '<rootDir>/scripts/jest-slowest-files.mjs'],
  // The longest files first, even on a fresh clone with no recorded times (scripts/jest-slow-first.mjs).
  testSequencer: '<rootDir>/scripts/jest-slow-first.mjs',
};
