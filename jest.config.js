// Jest runs TypeScript as native ESM (node --experimental-vm-modules), transformed by SWC.
// openapi-backend (CommonJS) require()s an ESM-only package; Node 20.19+ can do that, Jest's module
// system cannot, so that one package is transformed to CommonJS for tests.
const esmOnly = '(@apidevtools\\+json-schema-ref-parser)@';

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
    [`/node_modules/\\.pnpm/${esmOnly}[^/]+/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`^(?!.*/node_modules/\\.pnpm/${esmOnly}).*/node_modules/`],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // A sliced subgraph keeps a feature's tests beside it (services/<subgraph>/src/features/<feature>/test/).
  testMatch: [
    '<rootDir>/{services/*,gateway,player-web,console,launcher,rest-facade,legacy-adapter,scripts,client,mcp}/test/**/*.test.ts',
    '<rootDir>/services/*/src/features/*/test/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  // Checks every REST e2e response against the reference API (gateway/test/support/reference-conformance.ts).
  setupFiles: ['<rootDir>/gateway/test/support/conformance.setup.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  // Native engines (lmdb keeps a process-wide key buffer; chDB allows one open data dir per process)
  // do not survive being loaded by a second test file in the same worker: recycle the worker after
  // every file so each file gets a fresh process.
  workerIdleMemoryLimit: '10MB',
  verbose: false,
};
