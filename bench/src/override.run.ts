/**
 * The emergency override scenario alone (`pnpm --filter @pylon/bench exec tsx src/override.run.ts`;
 * BENCH_OVERRIDE_SCREENS, default 50, 3 with BENCH_SMOKE=true): see override.scenarios.ts. Exits 1
 * when a screen did not acknowledge.
 */
import { BENCH_KEY as KEY, withBenchApp } from './bench-app.js';
import { overrideFleet } from './override.scenarios.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const screens = Number(process.env.BENCH_OVERRIDE_SCREENS ?? (smoke ? 3 : 50));
const chromium = process.env.CHROMIUM_PATH ? { chromiumPath: process.env.CHROMIUM_PATH } : {};
const result = await withBenchApp('override', (app) => overrideFleet({ baseUrl: app.baseUrl, key: KEY, screens, ...chromium }));
if (result && result.errors > 0) process.exit(1);
