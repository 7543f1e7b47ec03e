/**
 * `kill -9` of `npm start` mid-load loses no acknowledged record: the all-in-one server runs as a
 * real child process (node itself, so SIGKILL reaches it), four players post play-log batches as
 * fast as they can, the process is killed while requests are in flight, restarted on the same data
 * dir, and every play log that was answered 202 must be queryable afterwards (embedded drivers:
 * LMDB stream, chDB store).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT } from './processes.js';

const KEY = 'kill9-bootstrap-key-0123456789';
let dataDir: string;
let child: ChildProcess | undefined;

async function start(port: number): Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'launcher/src/all-in-one.main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      LEGACY_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SIGNAGE_DATA_DIR: dataDir,
      SIGNAGE_BOOTSTRAP_API_KEY: KEY,
      SIGNAGE_SIMULATOR: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Generous: a busy 2-core machine starts the whole server slowly.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return url;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not become ready within 90 s');
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-kill9-'));
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

test('every play log acknowledged before the kill is stored after the restart', async () => {
  const port = await freePort();
  let url = await start(port);
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { 'x-service-apikey': KEY, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const screens: { id: string; registration_key: string }[] = [];
  for (let i = 0; i < 4; i++)
    screens.push((await (await api('POST', '/devices', { name: `Kill screen ${i}` })).json()) as { id: string; registration_key: string });

  const acked = new Map<string, Set<string>>(screens.map((s) => [s.id, new Set<string>()]));
  let stop = false;
  const base = Date.now() - 3_600_000;
  const load = screens.map(async (s, p) => {
    for (let b = 0; !stop && acked.get(s.id)!.size < 2_000; b++) {
      const batch = Array.from({ length: 50 }, (_, i) => ({
        id: `k9-${p}-${b}-${i}`,
        timestamp: new Date(base + b * 1000 + i).toISOString(),
        file_id: 'kill9-file',
        duration: 5,
        type: 'image',
      }));
      const res = await fetch(`${url}/player/${s.registration_key}/playlogs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      }).catch(() => null);
      if (!res) return; // the server is gone
      if (res.status === 202) for (const r of batch) acked.get(s.id)!.add(r.id);
    }
  });
  const total = () => [...acked.values()].reduce((n, s) => n + s.size, 0);
  const deadline = Date.now() + 60_000;
  while (total() < 2_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // Mid-load: requests are in flight right now.
  const exited = new Promise((r) => child!.once('exit', r));
  child!.kill('SIGKILL');
  await exited;
  stop = true;
  await Promise.all(load);
  const acknowledged = total();
  expect(acknowledged).toBeGreaterThanOrEqual(2_000);

  url = await start(port);
  const stored = async (deviceId: string) => {
    const res = await api('POST', '/graphql', {
      query: 'query($d: [String!]) { playLogs(startDate: "2000-01-01", endDate: "2100-01-01", deviceId: $d, limit: 5000) { id } }',
      variables: { d: [deviceId] },
    });
    const body = (await res.json()) as { data?: { playLogs: { id: string }[] } };
    return new Set((body.data?.playLogs ?? []).map((r) => r.id));
  };
  // Acknowledged-to-queryable is well under this even right after a restart.
  const until = Date.now() + 60_000;
  let missing: string[];
  do {
    missing = [];
    for (const s of screens) {
      const have = await stored(s.id);
      for (const id of acked.get(s.id)!) if (!have.has(id)) missing.push(id);
    }
    if (missing.length === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  } while (Date.now() < until);
  expect({ acknowledged, missing: missing.slice(0, 10), missingCount: missing.length }).toEqual({ acknowledged, missing: [], missingCount: 0 });
}, 300_000);
