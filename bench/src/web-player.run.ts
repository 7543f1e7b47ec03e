/**
 * The web player fleet scenario alone (`pnpm --filter @pylon/bench exec tsx src/web-player.run.ts`;
 * BENCH_SCREENS, default 200, and BENCH_EDITS, default 10): see web-player.scenarios.ts. Exits 1 on
 * any error.
 */
import { BENCH_KEY as KEY, withBenchApp } from './bench-app.js';
import { webPlayerFleet } from './web-player.scenarios.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const result = await withBenchApp('web-player', (app) =>
  webPlayerFleet({
    baseUrl: app.baseUrl,
    key: KEY,
    screens: Number(process.env.BENCH_SCREENS ?? (smoke ? 20 : 200)),
    edits: Number(process.env.BENCH_EDITS ?? (smoke ? 2 : 10)),
    releaseWaiters: () => (app.subgraphs.devices as unknown as { runtime: { releaseWaiters(): void } }).runtime.releaseWaiters(),
  }),
);
if (result.errors > 0) process.exit(1);
