/**
 * The all-in-one as every benchmark runs it: production mode, its data under `dir`, ports chosen by
 * the system, silent, the bench API key, no simulator, no rate limit. `extra` adds or overrides
 * settings (SIGNAGE_DEMO_PASSWORD, job thresholds, ...).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRepository } from '@pylon/devices';
import { createLogger, loadConfig, POLICIES, type Principal } from '@pylon/kit';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { startAllInOne } from '@pylon/launcher/all-in-one';
import { allInOneEnv } from '@pylon/launcher/all-in-one.config';

export const BENCH_KEY = 'bench-key-0123456789abcdef';
/** The demo owner's password where a scenario signs in (SIGNAGE_DEMO_PASSWORD). */
export const BENCH_PASSWORD = 'bench-owner-password';

export function benchEnv(dir: string, extra: Record<string, string> = {}) {
  return loadConfig(allInOneEnv, {
    NODE_ENV: 'production',
    SIGNAGE_DATA_DIR: dir,
    PORT: '0',
    LEGACY_PORT: '0',
    LOG_LEVEL: 'silent',
    SIGNAGE_BOOTSTRAP_API_KEY: BENCH_KEY,
    SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
    SIGNAGE_SIMULATOR: 'false',
    RATE_LIMIT_POINTS: '1000000000',
    ...UNLIMITED_SCREENS,
    // No background OPTIMIZE of the raw tables in the middle of a measurement (scenario 9 compacts when it means to).
    ANALYTICS_COMPACT_HOURS: '0',
    ...extra,
  });
}

/** The principal the bench key stands for (the demo owner), for the in-process layers the benchmarks call without HTTP. */
export const BENCH_OWNER: Principal = {
  accountId: DEMO_ACCOUNT_ID,
  userId: 'demo-owner',
  userName: 'owner',
  roles: ['Owner', 'API'],
  policies: [...POLICIES],
  isOwner: true,
  via: 'api-key',
};

/** The per-screen telemetry limits checked on every request (their cost is part of each figure), never refusing. */
export const UNLIMITED_SCREENS = Object.fromEntries(
  ['PINGS', 'PLAYLOGS', 'EVENTS', 'IMPRESSIONS'].flatMap((k) => [
    [`PLAYER_${k}_PER_SECOND`, '1000000000'],
    [`PLAYER_${k}_BURST`, '1000000000'],
  ]),
);

export const startBenchApp = (dir: string, extra: Record<string, string> = {}) =>
  startAllInOne(benchEnv(dir, extra), { logger: createLogger({ level: 'silent' }) });

export type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * `body` with a bench app whose data is in a fresh temporary directory (`pylon-bench-<name>-`,
 * handed to `body` too); the app is closed and the directory removed after.
 */
export async function withBenchApp<T>(name: string, body: (app: BenchApp, dir: string) => Promise<T>, extra: Record<string, string> = {}): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `pylon-bench-${name}-`));
  const app = await startBenchApp(dir, extra);
  try {
    return await body(app, dir);
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Adds 42 devices to the demo account: with its 8, the 50-device list of scenario 1. */
export async function addBenchDevices(app: BenchApp): Promise<void> {
  const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
  for (let i = 0; i < 42; i++) {
    await repo.addDevice(DEMO_ACCOUNT_ID, {
      name: `Bench ${String(i).padStart(2, '0')}`,
      tags: ['bench'],
      deviceType: { id: 'dt', name: 'Player', manufacturer: 'ACME' },
      pingData: { cpuUsage: 5, memoryUsage: 5, diskUsage: 5, playerVersion: '1', ipAddress: '10.1.0.1', timestamp: new Date().toISOString() },
      location: { city: 'Oslo', state: null, country: 'NO', latitude: 59.9, longitude: 10.7 },
      groupId: null,
      groupName: null,
      orgId: null,
      registrationKey: `bench-${i}`,
    });
  }
}
