#!/usr/bin/env node
// `npm test`: supergraph and generated-types drift checks, strict typecheck, layering rules
// (dependency-cruiser, .dependency-cruiser.cjs), the subgraph skeleton (scripts/check-layout.ts), persisted operations against the API schema,
// rest.yaml against the reference API, ESLint (eslint.config.js), copy/paste (jscpd, .jscpd.json)
// and Prettier (.prettierrc.json),
// every benchmark scenario in smoke mode (about a second each, figures not judged: a broken scenario
// fails here, not at the next `npm run bench`), then every jest suite (each REST e2e response
// validated against the reference API), then the coverage of that validation over the operations
// rest.yaml shares with the reference.
// Ends with a plain 'N passed, N failed, N skipped' line so CI can read the outcome.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
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
const LAYERED = ['services', 'gateway', 'player-web', 'launcher', 'rest-facade', 'legacy-adapter', 'bench', 'scripts', 'client', 'mcp'];

let failed = 0;
const checks = [
  ['supergraph check', bin('tsx'), ['scripts/compose-supergraph.ts', '--check']],
  ['generated types check', bin('tsx'), ['scripts/codegen.ts', '--check']],
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  // The operator console's browser code (DOM and JSX settings of its own).
  ['console typecheck', bin('tsc'), ['-p', 'console/tsconfig.json']],
  ['layering', bin('depcruise'), ['--config', '.dependency-cruiser.cjs', ...LAYERED]],
  // Every subgraph's src/ has the same skeleton, the one the README's "Inside a subgraph" table documents.
  ['subgraph layout', bin('tsx'), ['scripts/check-layout.ts']],
  ['persisted operations', bin('tsx'), ['scripts/check-operations.ts']],
  ['REST compatibility with the reference', bin('tsx'), ['scripts/check-rest-compat.ts']],
  ['lint', bin('eslint'), ['.']],
  // Copies of one rule: a clone of 50+ tokens / 6+ lines that .jscpd-baseline.json does not accept fails, as does
  // duplication above the threshold in .jscpd.json (TypeScript sources; generated files, fixtures and dist excluded).
  ['copy/paste', bin('jscpd'), ['-c', '.jscpd.json', '--no-colors', ...LAYERED]],
  ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
];
/** The compiled build, run before jest (see there). */
const build = ['build', process.execPath, [path.join(root, 'scripts/build.cjs')]];
// The bench smoke starts servers and browsers (beside the static checks; see below).
const benchSmoke = ['bench smoke', bin('tsx'), ['bench/src/run.ts'], { BENCH_SMOKE: 'true', NODE_ENV: 'production' }];

/** Runs one check with its output captured (printed whole when it ends, so two at once do not interleave). */
function runCaptured([label, cmd, args, extraEnv = {}]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...extraEnv } });
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    child.on('error', (e) => out.push(Buffer.from(`${e.message}\n`)));
    child.on('close', (code) => resolve({ label, status: code ?? 1, out: Buffer.concat(out), seconds: (Date.now() - started) / 1000 }));
  });
}

/**
 * The static checks in two lanes (this machine has two cores; each check is mostly one process on
 * one core): about half the wall time of running them one after another. Output in the listed order.
 */
async function runStaticChecks(list, lanes = 2) {
  const results = new Array(list.length);
  let next = 0;
  let printed = 0;
  const flush = () => {
    while (printed < list.length && results[printed]) {
      const r = results[printed++];
      process.stdout.write(`\n== ${r.label} (${r.seconds.toFixed(1)} s)\n`);
      process.stdout.write(r.out);
      if (r.status !== 0) failed++;
    }
  };
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < list.length) {
        const i = next++;
        results[i] = await runCaptured(list[i]);
        flush();
      }
    }),
  );
}

/** Every jest suite (or the subset the command line names), its report in `report`. */
function runJest(report, conformanceDir, extra) {
  const args = [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    path.join(root, 'node_modules/jest/bin/jest.js'),
    '--json',
    `--outputFile=${report}`,
    ...extra,
  ];
  return run('jest', process.execPath, args, { REST_CONFORMANCE_DIR: conformanceDir });
}

(async () => {
  // The bench smoke runs beside the static checks: its figures are not judged, and much of its time
  // is servers and browsers starting, so the two together take about the longer one's time (the
  // two one after another took ~4 minutes of CI's 30).
  const [, bench] = await Promise.all([runStaticChecks(checks), runCaptured(benchSmoke)]);
  process.stdout.write(`\n== ${bench.label} (${bench.seconds.toFixed(1)} s, beside the static checks)\n`);
  process.stdout.write(bench.out);
  if (bench.status !== 0) failed++;

  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const report = path.join(root, '.tmp', 'jest-report.json');
  fs.rmSync(report, { force: true });
  // Every jest worker appends the responses it validated against the reference API here.
  const conformanceDir = path.join(root, '.tmp', 'rest-conformance');
  fs.rmSync(conformanceDir, { recursive: true, force: true });
  // The compiled build (a few seconds), before any suite starts a process: every test that starts
  // one then runs the compiled entry, as the image does, instead of whichever suites happened to run
  // before the first one that builds (tsx's start is several times slower on a loaded machine).
  const [buildLabel, buildCmd, buildArgs] = build;
  if (run(buildLabel, buildCmd, buildArgs) !== 0) failed++;
  const jestStatus = runJest(report, conformanceDir, process.argv.slice(2));

  // Coverage needs every suite: skipped when jest was given a subset (extra arguments).
  const postChecks = process.argv.length > 2 ? [] : [['REST conformance coverage', bin('tsx'), ['scripts/check-rest-conformance.ts', conformanceDir]]];
  for (const [label, cmd, args] of postChecks) {
    if (run(label, cmd, args) !== 0) failed++;
  }

  let passed = 0,
    jestFailed,
    skipped = 0;
  if (fs.existsSync(report)) {
    const r = JSON.parse(fs.readFileSync(report, 'utf8'));
    passed = r.numPassedTests;
    jestFailed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    skipped = r.numPendingTests + (r.numTodoTests || 0);
  } else {
    jestFailed = 1;
  }
  const checksFailed = failed;
  const allChecks = [...checks, benchSmoke, build, ...postChecks];
  process.stdout.write(`\nchecks: ${allChecks.length - checksFailed} of ${allChecks.length} passed (${allChecks.map(([label]) => label).join(', ')})\n`);
  process.stdout.write(`${passed} passed, ${jestFailed + checksFailed} failed, ${skipped} skipped\n`);
  process.exit(failed || jestStatus ? 1 : 0);
})();
