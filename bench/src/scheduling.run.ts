/** Scenario 6 alone (`pnpm --filter @pylon/bench exec tsx src/scheduling.run.ts`): manifest resolutions vs GET /devices/{id}. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRepository } from '@pylon/devices';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { manifestScenario } from './scheduling.scenarios.js';
import { BENCH_KEY as KEY, startBenchApp } from './bench-app.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-scheduling-'));
const app = await startBenchApp(dir);
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
