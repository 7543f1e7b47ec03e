/** The one-line start errors (launcher/src/start): real errors in, the line with the fix out. */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLocked, LOCK_FILE, lockDataDir } from '../../src/start/data-dir-lock.js';
import { assertPortsFree } from '../../src/start/ports-free.js';
import { friendlyStartError } from '../../src/start/start-errors.js';

const env = { PORT: 4000, LEGACY_PORT: 4080, SIGNAGE_DATA_DIR: './data' };
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pylon-start-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a native engine that does not load names the engine, the reinstall and the server alternative', () => {
  // What Node throws for a native module that cannot be loaded here (a broken or foreign binary).
  const binary = join(dir, 'node_modules', 'chdb', 'build', 'Release', 'chdb_node.node');
  mkdirSync(join(binary, '..'), { recursive: true });
  writeFileSync(binary, 'not an ELF file');
  let thrown: unknown;
  try {
    createRequire(import.meta.url)(binary);
  } catch (e) {
    thrown = new Error('analytics store could not be opened', { cause: e });
  }
  const line = friendlyStartError(thrown, env)!;
  expect(line).toMatch(/^The native engine chdb \(the embedded analytics store\) could not be loaded on this machine/);
  expect(line).toContain('npx --yes pnpm@10.34.8 install --force');
  expect(line).toContain('ANALYTICS_DRIVER=clickhouse');
  expect(line).not.toContain('\n');
});

test('a port in use names the port, its setting and a free neighbour', async () => {
  const s = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const port = (s.address() as { port: number }).port;
  const e = await assertPortsFree([0, port], '127.0.0.1').catch((x: unknown) => x);
  s.close();
  expect(friendlyStartError(e, { ...env, LEGACY_PORT: port, PORT: port + 1 })).toBe(
    `Port ${port} (LEGACY_PORT) is already in use, by another Pylon or another server. Stop that process, or choose another port: LEGACY_PORT=${port + 2} npm start`,
  );
});

test('the data dir lock: a live holder refuses, a dead one is taken over, release removes the file', () => {
  const file = join(dir, LOCK_FILE);
  writeFileSync(file, `${process.ppid}\n`);
  let e: unknown;
  try {
    lockDataDir(dir);
  } catch (x) {
    e = x;
  }
  expect(e).toBeInstanceOf(DataDirLocked);
  expect(friendlyStartError(e, { ...env, SIGNAGE_DATA_DIR: dir })).toMatch(
    new RegExp(`^Another Pylon \\(process ${process.ppid}\\) is already running on the data dir`),
  );
  writeFileSync(file, '999999999\n'); // no such process
  const release = lockDataDir(dir);
  expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
  release();
  expect(existsSync(file)).toBe(false);
});

test('other failures are not disguised', () => {
  expect(friendlyStartError(new Error('boom'), env)).toBeUndefined();
});
