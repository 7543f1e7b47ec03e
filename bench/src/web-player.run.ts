/**
 * The web player fleet scenario alone (`pnpm --filter @pylon/bench exec tsx src/web-player.run.ts`;
 * BENCH_SCREENS, default 200, and BENCH_EDITS, default 10): see web-player.scenarios.ts. Exits 1 on
 * any error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY as KEY, startBenchApp } from './bench-app.js';
import { webPlayerFleet } from './web-player.scenarios.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-web-player-'));
const app = await startBenchApp(dir);
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
