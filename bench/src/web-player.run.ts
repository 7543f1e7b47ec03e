/**
 * The web player fleet scenario alone (`pnpm --filter @pylon/bench exec tsx src/web-player.run.ts`;
 * BENCH_SCREENS, default 200, and BENCH_EDITS, default 10): see web-player.scenarios.ts. Exits 1 on
 * any error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import { startAllInOne } from '@pylon/gateway/all-in-one';
import { allInOneEnv } from '@pylon/gateway/config';
import { webPlayerFleet } from './web-player.scenarios.js';

const KEY = 'bench-key-0123456789abcdef';
const smoke = process.env.BENCH_SMOKE === 'true';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-web-player-'));
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
const result = await webPlayerFleet({
  baseUrl: app.baseUrl,
  key: KEY,
  screens: Number(process.env.BENCH_SCREENS ?? (smoke ? 20 : 200)),
  edits: Number(process.env.BENCH_EDITS ?? (smoke ? 2 : 10)),
  releaseWaiters: () => (app.subgraphs.devices as unknown as { runtime: { releaseWaiters(): void } }).runtime.releaseWaiters(),
});
await app.close();
await rm(dir, { recursive: true, force: true });
if (result.errors > 0) process.exit(1);
