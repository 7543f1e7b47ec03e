/**
 * `npm start` as a real child process for the stop and loss tests: node itself runs the all-in-one
 * (not the tsx wrapper, so SIGKILL and SIGINT reach the server), on embedded drivers and a data dir
 * the test owns; its output is kept for the test to read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes.js';

export interface AllInOneChild {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** API calls with the bootstrap key. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
}

export async function startAllInOneChild(o: { port: number; dataDir: string; key: string; env?: Record<string, string> }): Promise<AllInOneChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'launcher/src/all-in-one.main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(o.port),
      LEGACY_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SIGNAGE_DATA_DIR: o.dataDir,
      SIGNAGE_BOOTSTRAP_API_KEY: o.key,
      SIGNAGE_SIMULATOR: 'false',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${o.port}`;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { 'x-service-apikey': o.key, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  // Generous: a busy 2-core machine starts the whole server slowly.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, child, output: () => output, exited, api };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not become ready within 90 s:\n${output}`);
}

/** Ends the child if it still runs (SIGTERM: a clean stop). */
export async function stopAllInOneChild(c: AllInOneChild | undefined): Promise<void> {
  if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGTERM');
  await c.exited;
}

/**
 * The data dir of one test file's children: made before its tests; after them the child last
 * started is stopped and the dir removed. `start` runs `npm start` on it (again after a stop or
 * a kill: a restart on the same data).
 */
export function childrenOnOneDataDir(name: string, key: string): { start(port: number, env?: Record<string, string>): Promise<AllInOneChild> } {
  let dataDir = '';
  let last: AllInOneChild | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `pylon-${name}-`));
  });
  afterAll(async () => {
    await stopAllInOneChild(last);
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    async start(port, env) {
      last = await startAllInOneChild({ port, dataDir, key, env });
      return last;
    },
  };
}

/** `n` devices of the bootstrap key's account, named `<name> <i>`. */
export async function createScreens(c: AllInOneChild, n: number, name: string): Promise<{ id: string; registration_key: string }[]> {
  const screens: { id: string; registration_key: string }[] = [];
  for (let i = 0; i < n; i++)
    screens.push((await (await c.api('POST', '/devices', { name: `${name} ${i}` })).json()) as { id: string; registration_key: string });
  return screens;
}

/** Batch `b` of `n` play logs of screen `p` under load: ids `<prefix>-<p>-<b>-<i>`, a millisecond apart from `base` + `b` s. */
export const playLogBatch = (prefix: string, p: number, b: number, n: number, base: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${p}-${b}-${i}`,
    timestamp: new Date(base + b * 1000 + i).toISOString(),
    file_id: 'kill9-file',
    duration: 5,
    type: 'image',
  }));
