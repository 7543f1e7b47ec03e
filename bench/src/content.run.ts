/** Scenario 4 alone (`pnpm --filter @pylon/bench exec tsx src/content.run.ts`): the 200 MB upload against a local copy. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printUpload, uploadScenario } from './content.scenarios.js';
import { BENCH_KEY as KEY, BENCH_PASSWORD, startBenchApp } from './bench-app.js';

const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-content-'));
const app = await startBenchApp(dir, { SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD });
printUpload(await uploadScenario({ baseUrl: app.baseUrl, key: KEY, dir, sizeMb: Number(process.env.BENCH_UPLOAD_MB ?? 200) }));
await app.close();
await rm(dir, { recursive: true, force: true });
