/**
 * Jest runs the TypeScript sources as native ES modules (Nest 12 ships ESM only), compiled by SWC with decorator
 * metadata. A few CommonJS dependencies require() packages that ship ESM only, which Jest cannot do on Node 20;
 * those packages are compiled to CommonJS for the test run (the built daemon needs none of this: Node 20.19+
 * does require(esm) natively).
 */
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

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    [`node_modules/(${esmOnly})/.+\\.js$`]: swc('commonjs'),
    '^.+\\.ts$': swc('es6'),
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly})/)`],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
