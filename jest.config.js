// Jest runs TypeScript as native ESM (node --experimental-vm-modules), transformed by SWC.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{services/*,gateway,rest-facade,legacy-adapter}/test/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  verbose: false,
};
