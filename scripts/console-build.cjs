// The operator console's build (console/, React + Vite) into console/dist, which the gateway serves
// at /console. `npm run build` always builds it; `npm start` and the console's browser test build it
// only when console/'s sources changed since the last build (a stamp in .tmp/), so a start with an
// unchanged console/ costs a few file stats.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const dir = path.join(root, 'console');
const STAMP = path.join(root, '.tmp', 'console-stamp.json');
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'package.json'];

function newest(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return fs.readdirSync(p).reduce((n, f) => Math.max(n, newest(path.join(p, f))), st.mtimeMs);
}

/** True when console/dist was built after the last change to its inputs. */
function isCurrent() {
  if (!fs.existsSync(STAMP) || !fs.existsSync(path.join(dir, 'dist', 'index.html'))) return false;
  const { builtAt } = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  return INPUTS.every((f) => newest(path.join(dir, f)) <= builtAt);
}

/** Runs Vite (its own process: the build is an ESM program with its own native bundler). Answers the milliseconds it took. */
function build() {
  const started = Date.now();
  const vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [dir] })), 'bin', 'vite.js');
  // NODE_ENV pinned: Vite builds whatever mode NODE_ENV names (jest sets "test": React's development build, 3x the size).
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: dir, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) throw new Error(`the console build failed (exit ${r.status}): see the lines above`);
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify({ builtAt: started }));
  return Date.now() - started;
}

/** Builds unless current; answers the milliseconds spent building (0 when it was current). */
function ensure() {
  return isCurrent() ? 0 : build();
}

module.exports = { isCurrent, build, ensure, distDir: path.join(dir, 'dist') };
