// The compiled build (`npm run build`): which packages it covers, where their output goes, and
// whether that output is current. Shared by scripts/build.cjs, scripts/run.cjs (npm start uses
// the compiled entry when current) and the tests that start processes from dist/.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** Every workspace package a Pylon process loads; each compiles its src/ to its own dist/. */
const PACKAGES = [
  ...fs
    .readdirSync(path.join(root, 'services'))
    .filter((d) => fs.existsSync(path.join(root, 'services', d, 'src')))
    .map((d) => `services/${d}`),
  'gateway',
  'player-web',
  'client',
  'mcp',
  'launcher',
  'rest-facade',
  'legacy-adapter',
];
/** The Node condition under which each package's exports resolve to dist/ (default: src/). */
const CONDITION = 'pylon-dist';
const STAMP = path.join(root, '.tmp', 'dist-stamp.json');

function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The sources a build depends on: every package's src/ and package.json; and what the all-in-one's
 * bundle names (scripts/bundle-entry.cjs): the installed packages' folders follow the lockfile and
 * the patches, so a change to either makes the build stale too.
 */
function sourcesMtime() {
  let newest = 0;
  for (const pkg of PACKAGES) {
    newest = Math.max(newest, newestMtime(path.join(root, pkg, 'src')), fs.statSync(path.join(root, pkg, 'package.json')).mtimeMs);
  }
  for (const file of ['pnpm-lock.yaml', 'scripts/bundle-entry.cjs']) newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
  return Math.max(newest, newestMtime(path.join(root, 'patches')));
}

/** True when `npm run build` ran after the last change to any source. */
function isCurrent() {
  if (!fs.existsSync(STAMP)) return false;
  const { builtAt } = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  return PACKAGES.every((p) => fs.existsSync(path.join(root, p, 'dist'))) && sourcesMtime() <= builtAt;
}

/** How to run a compiled entry: `node --conditions=pylon-dist <pkg>/dist/<file>.js`. */
function nodeArgs(entry) {
  return [`--conditions=${CONDITION}`, path.join(root, entry)];
}

module.exports = { root, PACKAGES, CONDITION, STAMP, sourcesMtime, isCurrent, nodeArgs };
