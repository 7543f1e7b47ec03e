#!/usr/bin/env node
// Entry for `npm start`, `npm test` and `npm run bench` on a fresh clone: installs the
// workspace with the pinned pnpm (through npx) when needed, then runs the pnpm script.
// `npm start` with a current install runs the server without an npx/pnpm layer, in this very process:
// the compiled entry when `npm run build` is current, else the sources (tsx registered as a module
// hook); its progress lines at once, Ctrl-C ends it with exit 0.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const PNPM = `pnpm@${require(path.join(root, 'package.json')).packageManager.split('@')[1]}`;
const targets = { start: ['run', 'serve'], test: ['run', 'test:all'], bench: ['--filter', '@pylon/bench', 'run', 'bench'] };

function pnpm(args) {
  const r = spawnSync('npx', ['--yes', PNPM, ...args], { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function needsInstall() {
  const marker = path.join(root, 'node_modules', '.modules.yaml');
  const lock = path.join(root, 'pnpm-lock.yaml');
  if (!fs.existsSync(marker)) return true;
  return fs.existsSync(lock) && fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs;
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Pylon needs Node.js 20.19 or newer (found ${process.versions.node}).`);
  process.exit(1);
}
const target = targets[process.argv[2]];
if (!target) {
  console.error(`usage: run.cjs ${Object.keys(targets).join('|')}`);
  process.exit(2);
}
const installed = !needsInstall();
if (!installed) pnpm(['install', ...(process.env.CI ? ['--frozen-lockfile'] : [])]);
if (process.argv[2] === 'start') {
  if (!installed) process.stdout.write('Installed; starting Pylon\n');
  startServer();
} else {
  pnpm([...target, ...process.argv.slice(3)]);
}

/**
 * The all-in-one server. With a current `npm run build` (scripts/dist.cjs): the compiled entry. Its
 * packages resolve to dist/ under the `pylon-dist` export condition, which only a start-up flag sets:
 * `npm start` passes it to this process (package.json), so the entry runs right here, one Node boot
 * fewer; run without it, a child process gets it (signals passed on, its exit code ours).
 * Otherwise TypeScript through tsx's module hooks: in this process, or in a child when this one
 * carries the dist condition (which would send the packages to a stale or missing dist/).
 */
function startServer() {
  // The operator console (/console) is built once and reused while console/ is unchanged (~4 s when it changed).
  const consoleBuild = require('./console-build.cjs');
  if (!consoleBuild.isCurrent()) {
    process.stdout.write('Building the operator console (/console)...\n');
    try {
      process.stdout.write(`Console built in ${(consoleBuild.build() / 1000).toFixed(1)} s\n`);
    } catch (e) {
      console.error(`${e.message}; Pylon starts without it (/console answers 503)`);
    }
  }
  const dist = require('./dist.cjs');
  const withDistCondition = process.execArgv.includes(`--conditions=${dist.CONDITION}`);
  // Node 22.1+ keeps the compiled code of every module in this directory, so a restart skips most
  // of the compiling (Node 20 has no such cache); the image sets its own (Dockerfile).
  const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(root, '.tmp', 'compile-cache');
  if (dist.isCurrent()) {
    const entry = path.join(root, 'launcher/dist/all-in-one.main.js');
    if (withDistCondition) {
      require('node:module').enableCompileCache?.(compileCache);
      return load(entry);
    }
    return runChild([...dist.nodeArgs('launcher/dist/all-in-one.main.js'), ...process.argv.slice(3)], { NODE_COMPILE_CACHE: compileCache, ...process.env });
  }
  const entry = path.join(root, 'launcher/src/all-in-one.main.ts');
  if (withDistCondition) return runChild(['--import', 'tsx', entry, ...process.argv.slice(3)], process.env);
  // What `node --import tsx` loads: registers tsx's module hooks for this process.
  import('tsx').then(() => load(entry), fail);
}

function load(entry) {
  const { pathToFileURL } = require('node:url');
  import(pathToFileURL(entry).href).catch(fail);
}

function fail(e) {
  console.error(`Pylon could not load its code: ${e && e.message}`);
  process.exit(1);
}

function runChild(args, env) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
