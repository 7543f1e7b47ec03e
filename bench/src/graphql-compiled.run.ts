/**
 * The compiled-vs-graphql-js comparison alone (`pnpm --filter @pylon/bench exec tsx src/graphql-compiled.run.ts`):
 * the bench server with 50 devices, scenario 6's screen and scenario 9's data (BENCH_ANALYTICS_PLAYS,
 * default 300,000), then BENCH_AB_PAIRS request pairs per path (default 300), see graphql-compiled.scenarios.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRepository } from '@pylon/devices';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { generateTelemetry } from './analytics.scenarios.js';
import { addBenchDevices, BENCH_KEY as KEY, BENCH_PASSWORD, startBenchApp } from './bench-app.js';
import { compiledTable, compiledVsInterpreted } from './graphql-compiled.scenarios.js';
import { MANIFEST_REGISTRATION_KEY, manifestScenario } from './scheduling.scenarios.js';

const plays = Number(process.env.BENCH_ANALYTICS_PLAYS ?? 300_000);
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-compiled-'));
const app = await startBenchApp(dir, { SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD });
await addBenchDevices(app);
const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
await manifestScenario({ baseUrl: app.baseUrl, key: KEY, accountId: DEMO_ACCOUNT_ID, repo, seconds: 1, connections: 10 });
await generateTelemetry(app.analytics, DEMO_ACCOUNT_ID, { plays, pings: Math.round(plays * 0.3), impressions: Math.round(plays * 0.1) });
console.log('\nGraphQL execution: compiled (graphql-jit) vs graphql-js, interleaved request by request\n');
const rows = await compiledVsInterpreted({
  baseUrl: app.baseUrl,
  key: KEY,
  manifestUrl: `${app.baseUrl}/player/${MANIFEST_REGISTRATION_KEY}/manifest`,
  pairs: Number(process.env.BENCH_AB_PAIRS ?? 300),
  warmup: 20,
});
console.log(compiledTable(rows));
await app.close();
await rm(dir, { recursive: true, force: true });
