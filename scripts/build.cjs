#!/usr/bin/env node
// `npm run build`: compiles every package's src/ to its dist/ with esbuild (one JS file per TS file,
// ESM, Node 20 target; types are checked by `npm run typecheck`, not here) and copies the non-TS
// files a package reads at run time (the docs pages). Package exports resolve to dist/ under the
// `pylon-dist` condition (scripts/dist.cjs), so production runs plain `node`, no transpiler.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const esbuild = require('esbuild');
const { root, PACKAGES, STAMP, CONDITION } = require('./dist.cjs');

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

async function buildPackage(pkg) {
  const src = path.join(root, pkg, 'src');
  const out = path.join(root, pkg, 'dist');
  // A feature's tests live beside it (src/features/<feature>/test/): not part of the package.
  const files = walk(src).filter((f) => !f.split(path.sep).includes('test'));
  fs.rmSync(out, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outbase: src,
    outdir: out,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    const to = path.join(out, path.relative(src, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  return files.length;
}

(async () => {
  const started = Date.now();
  const builtAt = Date.now();
  let n = 0;
  for (const pkg of PACKAGES) n += await buildPackage(pkg);
  // The all-in-one's entry and the workspace code it loads, as one bundle (scripts/bundle-entry.cjs).
  await require('./bundle-entry.cjs').bundleAllInOne(root, CONDITION);
  // rest.yaml's parse and the subgraphs' expanded SDL, made once here instead of at every start.
  const caches = spawnSync(process.execPath, [`--conditions=${CONDITION}`, path.join(__dirname, 'write-start-caches.mjs')], { stdio: 'inherit' });
  if (caches.status !== 0) throw new Error('scripts/write-start-caches.mjs failed');
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify({ builtAt }));
  // The operator console (/console): a browser app, built by Vite into console/dist.
  const consoleMs = require('./console-build.cjs').build();
  process.stdout.write(
    `built ${PACKAGES.length} packages (${n} files) to <package>/dist and the console in ${Date.now() - started} ms (console ${consoleMs} ms)\n`,
  );
})().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
