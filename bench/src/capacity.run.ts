/**
 * The capacity scenario (see capacity.scenarios.ts): how many web-player screens one all-in-one
 * holds (`BENCH_ONLY=capacity npm run bench` runs it alone), and the distributed topology with one
 * and two devices processes over Redis (distributed.ts; `BENCH_ONLY=capacity-distributed`; skipped,
 * with the reason printed, when Redis does not answer at REDIS_URL). BENCH_CAPACITY_START (default
 * 250) screens, doubling up to BENCH_CAPACITY_MAX (default 16000); BENCH_CAPACITY_EDITS (default 3)
 * edits over a window of BENCH_CAPACITY_SECONDS (default 30) per step. Smoke mode: 10 and 20
 * screens, 1 edit each; latency not judged.
 */
import { loadavg } from 'node:os';
import { capacityScenario, printCapacity, type CapacityStep } from './capacity.scenarios.js';
import { REDIS_URL, redisAnswers, startDistributed } from './distributed.js';

export interface CapacityResult {
  screens: number;
  steps: CapacityStep[];
}

/** `devicesProcesses` set: the distributed topology with that many devices processes; else one all-in-one. */
export async function runCapacity(smoke: boolean, devicesProcesses?: number): Promise<CapacityResult> {
  const env = process.env;
  const steps = await capacityScenario({
    ...(smoke
      ? { start: 10, max: 20, edits: 1, windowSeconds: 1, judgeLatency: false }
      : {
          start: Number(env.BENCH_CAPACITY_START ?? 250),
          max: Number(env.BENCH_CAPACITY_MAX ?? 16_000),
          edits: Number(env.BENCH_CAPACITY_EDITS ?? 3),
          windowSeconds: Number(env.BENCH_CAPACITY_SECONDS ?? 30),
        }),
    ...(devicesProcesses ? { topology: (e: Record<string, string>) => startDistributed({ devices: devicesProcesses, env: e }) } : {}),
  });
  printCapacity(steps, devicesProcesses ? `distributed, ${devicesProcesses} devices process${devicesProcesses > 1 ? 'es' : ''}` : 'all-in-one');
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // In smoke mode an error or a lost record is a broken scenario (the latency is not judged there).
  if (smoke && steps.some((s) => s.errors > 0 || s.lost > 0)) throw new Error('capacity smoke: errors or lost play logs');
  return { screens: steps.filter((s) => s.held).at(-1)?.screens ?? 0, steps };
}

/** The distributed topology with 1, then 2 devices processes; undefined (and why, printed) without Redis. */
export async function runDistributedCapacity(smoke: boolean): Promise<CapacityResult[] | undefined> {
  if (!(await redisAnswers())) {
    console.log(`distributed capacity: skipped, no Redis answers at ${REDIS_URL} (set REDIS_URL, or start redis-server)`);
    return undefined;
  }
  const out: CapacityResult[] = [];
  for (const n of smoke ? [2] : [1, 2]) out.push(await runCapacity(smoke, n));
  return out;
}
