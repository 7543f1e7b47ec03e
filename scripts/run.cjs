#!/usr/bin/env node
// Entry for `npm start`, `npm test` and `npm run bench` on a fresh clone: installs the
// workspace with the pinned pnpm (through npx) when needed, then runs the pnpm script.
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
if (needsInstall()) pnpm(['install', ...(process.env.CI ? ['--frozen-lockfile'] : [])]);
// Issue 19 (build): `npm start` runs the compiled entry, plain node, when `npm run build` output is
// current; signals are passed on so the server shuts down gracefully with this process.
const dist = require('./dist.cjs');
if (process.argv[2] === 'start' && dist.isCurrent()) {
  const args = [...dist.nodeArgs('gateway/dist/all-in-one.main.js'), ...process.argv.slice(3)];
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  pnpm([...target, ...process.argv.slice(3)]);
}
