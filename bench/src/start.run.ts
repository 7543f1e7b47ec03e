/**
 * Scenario 8 alone (`pnpm --filter @pylon/bench exec tsx src/start.run.ts`): spawn to /readyz from
 * dist/ (and through tsx). BENCH_START_RUNS starts each (default 5), BENCH_START_ONLY a target
 * ('all-in-one', 'datatables', 'npm start'), BENCH_START_TSX=false leaves out the starts through tsx,
 * BENCH_START_IMAGE=false the all-in-one under the image's Node with its compile cache.
 */
import { loadavg } from 'node:os';
import { imageNode, printStart, startScenario } from './start.scenarios.js';

const runs = Number(process.env.BENCH_START_RUNS ?? 5);
const results = await startScenario(runs, {
  only: process.env.BENCH_START_ONLY,
  tsx: process.env.BENCH_START_TSX !== 'false',
  imageNode: process.env.BENCH_START_IMAGE === 'false' ? undefined : imageNode(),
});
printStart(results, runs);
console.log(
  `\n${new Date().toISOString()}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
