/** Scenario 6 alone (`pnpm --filter @pylon/bench exec tsx src/scheduling.run.ts`): manifest resolutions vs GET /devices/{id}. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRepository } from '@pylon/devices';
import { createLogger, loadConfig } from '@pylon/kit';
import { startAllInOne } from '@pylon/gateway/all-in-one';
import { allInOneEnv } from '@pylon/gateway/config';
import { DEMO_ACCOUNT_ID } from '@pylon/gateway/demo';
import { manifestScenario } from './scheduling.scenarios.js';

const KEY = 'bench-key-0123456789abcdef';
const smoke = process.env.BENCH_SMOKE === 'true';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-scheduling-'));
const env = loadConfig(allInOneEnv, {
  NODE_ENV: 'production',
  SIGNAGE_DATA_DIR: dir,
  PORT: '0',
  LEGACY_PORT: '0',
  LOG_LEVEL: 'silent',
  SIGNAGE_BOOTSTRAP_API_KEY: KEY,
  SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
  SIGNAGE_SIMULATOR: 'false',
  RATE_LIMIT_POINTS: '1000000000',
});
const app = await startAllInOne(env, { logger: createLogger({ level: 'silent' }) });
const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
await manifestScenario({
  baseUrl: app.baseUrl,
  key: KEY,
  accountId: DEMO_ACCOUNT_ID,
  repo,
  seconds: Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 10)),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
});
await app.close();
await rm(dir, { recursive: true, force: true });
