/**
 * The capacity scenario alone (`BENCH_ONLY=capacity npm run bench`): how many web-player screens one
 * all-in-one holds (see capacity.scenarios.ts). BENCH_CAPACITY_START (default 250) screens, doubling
 * up to BENCH_CAPACITY_MAX (default 16000); BENCH_CAPACITY_EDITS (default 3) edits over a window of
 * BENCH_CAPACITY_SECONDS (default 30) per step. Smoke mode: 10 and 20 screens, 1 edit each; latency not judged.
 */
import { loadavg } from 'node:os';
import { capacityScenario, printCapacity, type CapacityStep } from './capacity.scenarios.js';

export async function runCapacity(smoke: boolean): Promise<{ screens: number; steps: CapacityStep[] }> {
  const env = process.env;
  const steps = await capacityScenario(
    smoke
      ? { start: 10, max: 20, edits: 1, windowSeconds: 1, judgeLatency: false }
      : {
          start: Number(env.BENCH_CAPACITY_START ?? 250),
          max: Number(env.BENCH_CAPACITY_MAX ?? 16_000),
          edits: Number(env.BENCH_CAPACITY_EDITS ?? 3),
          windowSeconds: Number(env.BENCH_CAPACITY_SECONDS ?? 30),
        },
  );
  printCapacity(steps);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // In smoke mode an error or a lost record is a broken scenario (the latency is not judged there).
  if (smoke && steps.some((s) => s.errors > 0 || s.lost > 0)) throw new Error('capacity smoke: errors or lost play logs');
  return { screens: steps.filter((s) => s.held).at(-1)?.screens ?? 0, steps };
}
