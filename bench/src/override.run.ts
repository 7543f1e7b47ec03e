/**
 * The emergency override scenario alone (`pnpm --filter @pylon/bench exec tsx src/override.run.ts`;
 * BENCH_OVERRIDE_SCREENS, default 50, 3 with BENCH_SMOKE=true): see override.scenarios.ts. Exits 1
 * when a screen did not acknowledge.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY as KEY, startBenchApp } from './bench-app.js';
import { overrideFleet } from './override.scenarios.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-override-'));
const app = await startBenchApp(dir);
const result = await overrideFleet({
  baseUrl: app.baseUrl,
  key: KEY,
  screens: Number(process.env.BENCH_OVERRIDE_SCREENS ?? (smoke ? 3 : 50)),
  ...(process.env.CHROMIUM_PATH ? { chromiumPath: process.env.CHROMIUM_PATH } : {}),
});
await app.close();
await rm(dir, { recursive: true, force: true });
if (result && result.errors > 0) process.exit(1);
