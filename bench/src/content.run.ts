/** Scenario 4 alone (`pnpm --filter @pylon/bench exec tsx src/content.run.ts`): the 200 MB upload against a local copy. */
import { printUpload, uploadScenario } from './content.scenarios.js';
import { BENCH_KEY as KEY, BENCH_PASSWORD, withBenchApp } from './bench-app.js';

printUpload(
  await withBenchApp('content', (app, dir) => uploadScenario({ baseUrl: app.baseUrl, key: KEY, dir, sizeMb: Number(process.env.BENCH_UPLOAD_MB ?? 200) }), {
    SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD,
  }),
);
