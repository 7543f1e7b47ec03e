/**
 * The distributed topology as the image runs it, on this machine, for the capacity scenario: the
 * `migrate` job (migrations and the bootstrap API key), then identity, content, datatables,
 * analytics (with its telemetry ingest), scheduling, `devices` devices processes and the gateway,
 * each its own process from dist/ (`role.main.js <role>`, production mode), over real HTTP. They
 * share the embedded document store and blob directory of one data dir (LMDB is multi-process
 * safe) and Redis for the cache, pub/sub and the telemetry stream (STREAM_DRIVER=redis, a key
 * prefix of this run's own, deleted at the end); analytics alone holds the chDB store.
 *
 * Screens reach the devices processes directly, one in `devices` each, as a Kubernetes Service in
 * front of that Deployment spreads them; pages and GraphQL go to the gateway.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedisCache, deleteRedisKeys } from '@pylon/adapters/redis';
import { ensureBuilt, freePort, spawnReady, type StartedProcess } from './start.scenarios.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROLE_MAIN = join(ROOT, 'launcher/dist/role.main.js');

/** What a capacity run talks to: the API's address, where screens send their player calls, the server processes (CPU is read from /proc). */
export interface Topology {
  baseUrl: string;
  playerUrls: string[];
  pids: number[];
  /** The server processes' warnings and errors since the last call, counted by `logger: message: error`. */
  takeWarnings(): Map<string, number>;
  stop(): Promise<void>;
}

/** The processes' warnings, added up. */
export function warningsOf(processes: StartedProcess[]): Map<string, number> {
  const all = new Map<string, number>();
  for (const p of processes) for (const [k, n] of p.takeWarnings()) all.set(k, (all.get(k) ?? 0) + n);
  return all;
}

export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether Redis answers at REDIS_URL (within a second). */
export async function redisAnswers(): Promise<boolean> {
  const probe = createRedisCache({ url: REDIS_URL, commandTimeoutMs: 1000 });
  const ok = await probe.ping().then(
    () => true,
    () => false,
  );
  await probe.close();
  return ok;
}

const command = (role: string) => [process.execPath, '--conditions=pylon-dist', ROLE_MAIN, role];

export async function startDistributed(o: { devices: number; env: Record<string, string> }): Promise<Topology> {
  ensureBuilt();
  const dataDir = await mkdtemp(join(tmpdir(), 'pylon-distributed-'));
  const prefix = `pylon:bench:${randomBytes(4).toString('hex')}:`;
  const shared = { ...o.env, STREAM_DRIVER: 'redis', CACHE_DRIVER: 'redis', REDIS_URL, REDIS_STREAM_PREFIX: prefix, MIGRATE_AT_START: 'false' };
  const started: StartedProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
    await rm(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(REDIS_URL, prefix);
  };
  try {
    await migrate(shared, dataDir);
    const names = ['identity', 'content', 'datatables', 'analytics', 'scheduling', ...Array.from({ length: o.devices }, () => 'devices')];
    const ports = await Promise.all(names.map(() => freePort()));
    const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const devicesUrls = names.flatMap((n, i) => (n === 'devices' ? [url(i)] : []));
    const urls = {
      IDENTITY_URL: url(0),
      CONTENT_URL: url(1),
      DATATABLES_URL: url(2),
      ANALYTICS_URL: url(3),
      SCHEDULING_URL: url(4),
      DEVICES_URL: devicesUrls[0]!,
    };
    const subgraphs = await Promise.all(
      names.map(async (role, i) =>
        spawnReady(command(role), { ...shared, ...urls, PORT: String(ports[i]), METRICS_PORT: String(await freePort()) }, ports[i]!, dataDir),
      ),
    );
    started.push(...subgraphs);
    const gatewayPort = await freePort();
    const gateway = await spawnReady(
      command('gateway'),
      { ...shared, ...urls, PORT: String(gatewayPort), METRICS_PORT: String(await freePort()) },
      gatewayPort,
      dataDir,
    );
    started.push(gateway);
    return { baseUrl: gateway.baseUrl, playerUrls: devicesUrls, pids: started.map((p) => p.pid), takeWarnings: () => warningsOf(started), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The migrate job, as a deployment runs it before the services: migrations, then the bootstrap key (limit 120 s). */
async function migrate(env: Record<string, string>, dataDir: string): Promise<void> {
  const child = spawn(command('migrate')[0]!, command('migrate').slice(1), {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', SIGNAGE_DATA_DIR: dataDir, SIGNAGE_INTERNAL_SECRET: 's'.repeat(64), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the migrate job exited with ${code}`);
}
