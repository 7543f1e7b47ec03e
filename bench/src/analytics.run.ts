/**
 * Scenario 9 alone (`pnpm --filter @pylon/bench exec tsx src/analytics.run.ts`): analytics queries
 * raw vs rollups vs direct SQL. Sizes: BENCH_ANALYTICS_PLAYS (default 100M, the size; smoke
 * 20k), pings and impressions 30 % and 10 % of it unless BENCH_ANALYTICS_PINGS /
 * BENCH_ANALYTICS_IMPRESSIONS say; BENCH_ANALYTICS_ITERATIONS timed calls per path (default 20;
 * smoke 2), BENCH_ANALYTICS_ROLLUP_ITERATIONS on the rollup paths the GraphQL / direct ratio compares
 * (default 50; smoke 2), each series after 10 untimed calls. Above 5M plays (or with
 * BENCH_ANALYTICS_BACKFILL=true) the rollups the scenario reads are filled after the raw rows
 * instead of by the views during the insert (see generateTelemetry).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { analyticsReport, generateTelemetry } from './analytics.scenarios.js';
import { startBenchApp } from './bench-app.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const plays = Number(process.env.BENCH_ANALYTICS_PLAYS ?? (smoke ? 20_000 : 100_000_000));
const backfill = process.env.BENCH_ANALYTICS_BACKFILL ? process.env.BENCH_ANALYTICS_BACKFILL === 'true' : plays > 5_000_000;
const sizes = {
  plays,
  pings: Number(process.env.BENCH_ANALYTICS_PINGS ?? Math.round(plays * 0.3)),
  impressions: Number(process.env.BENCH_ANALYTICS_IMPRESSIONS ?? Math.round(plays * 0.1)),
};
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-analytics-'));
const app = await startBenchApp(dir);
const ms = await generateTelemetry(app.analytics, DEMO_ACCOUNT_ID, sizes, { backfill, log: (l) => console.log(`  ${l}`) });
console.log(
  `\nScenario 9: analytics (${sizes.plays} play logs, ${sizes.pings} pings, ${sizes.impressions} impressions generated in ${(ms / 1000).toFixed(1)} s${backfill ? ', rollups backfilled' : ''})\n`,
);
console.log(
  await analyticsReport(app, smoke, {
    iterations: Number(process.env.BENCH_ANALYTICS_ITERATIONS ?? (smoke ? 2 : 20)),
    rollupIterations: Number(process.env.BENCH_ANALYTICS_ROLLUP_ITERATIONS ?? (smoke ? 2 : 50)),
    log: (l) => console.log(`  ${l}`),
  }),
);
await app.close();
await rm(dir, { recursive: true, force: true });
