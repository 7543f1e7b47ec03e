#!/usr/bin/env node
// `npm test`: supergraph and generated-types drift checks, strict typecheck, layering rules
// (dependency-cruiser, .dependency-cruiser.cjs), persisted operations against the API schema,
// ESLint (eslint.config.js) and Prettier (.prettierrc.json), then every jest suite.
// Ends with a plain 'N passed, N failed, N skipped' line so CI can read the outcome.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (label, cmd, args, extraEnv = {}) => {
  process.stdout.write(`\n== ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  return r.status ?? 1;
};

/** Every source tree the layering rules cover. */
const LAYERED = ['services', 'gateway', 'rest-facade', 'legacy-adapter', 'bench', 'scripts'];

let failed = 0;
const checks = [
  ['supergraph check', bin('tsx'), ['scripts/compose-supergraph.ts', '--check']],
  ['generated types check', bin('tsx'), ['scripts/codegen.ts', '--check']],
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['layering', bin('depcruise'), ['--config', '.dependency-cruiser.cjs', ...LAYERED]],
  ['persisted operations', bin('tsx'), ['scripts/check-operations.ts']],
  ['lint', bin('eslint'), ['.']],
  ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
];
for (const [label, cmd, args] of checks) {
  if (run(label, cmd, args) !== 0) failed++;
}

fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
const report = path.join(root, '.tmp', 'jest-report.json');
fs.rmSync(report, { force: true });
const jestArgs = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', path.join(root, 'node_modules/jest/bin/jest.js'), '--json', `--outputFile=${report}`, ...process.argv.slice(2)];
const jestStatus = run('jest', process.execPath, jestArgs);

let passed = 0, jestFailed, skipped = 0;
if (fs.existsSync(report)) {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = r.numPassedTests;
  jestFailed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  skipped = r.numPendingTests + (r.numTodoTests || 0);
} else {
  jestFailed = 1;
}
const checksFailed = failed;
process.stdout.write(`\nchecks: ${checks.length - checksFailed} of ${checks.length} passed (${checks.map(([label]) => label).join(', ')})\n`);
process.stdout.write(`${passed} passed, ${jestFailed + checksFailed} failed, ${skipped} skipped\n`);
process.exit(failed || jestStatus ? 1 : 0);
