/**
 * How fast this machine runs a fixed piece of work right now, printed at the start and at the end of
 * every full run and kept in its result (bench/src/results.ts). On this shared host (2 vCPUs) the same
 * code's absolute figures move by a fifth to a third from one run to the next: on 2026-11-30 scenario
 * 8's all-in-one was ready in 1,787 ms at 23:07 and 2,301 ms at 23:30, on the same commit, with 2,390
 * and 3,090 ms of CPU by then. A ratio has its floor measured beside it; the absolute bars (start
 * < 2 s, bulk commands < 100 ms) have none, and this probe is what tells a slow host from a regression.
 *
 * Two probes on the event loop, each the best of `reps`: SHA-512 over 32 MiB (native code, the
 * upload's hash) and JSON.stringify + JSON.parse of a 50-device list answer (the JavaScript every
 * request runs), in round trips per second. The best, not the median: a rep that a thread of this
 * process interrupted (at the end of a run, the store of scenario 10 may still be merging) reads slower,
 * while a host whose cores are shared with a neighbour makes every rep slower.
 */
import { createHash } from 'node:crypto';

export interface MachineSpeed {
  sha512MBs: number;
  jsonRoundTripsPerSecond: number;
}

const MiB = 1024 * 1024;

/** A deterministic answer the size of scenario 1's (50 devices, ~40 kB of JSON). */
function deviceList(): unknown {
  return {
    data: {
      device: Array.from({ length: 50 }, (_, i) => ({
        id: `device-${i}`,
        name: `Lobby screen ${i}`,
        tags: ['lobby', 'floor-2', `zone-${i % 7}`],
        status: i % 3 === 0 ? 'OFFLINE' : 'ONLINE',
        pingData: { cpuUsage: i % 100, memoryUsage: (i * 7) % 100, diskUsage: 40, playerVersion: '3.2.1', ipAddress: `10.0.0.${i}` },
        location: { city: 'Oslo', country: 'NO', latitude: 59.91 + i / 1000, longitude: 10.75 },
        schedule: Array.from({ length: 8 }, (_, k) => ({ id: `s-${i}-${k}`, name: `Morning loop ${k}`, start: '2026-11-30T06:00:00Z', priority: k })),
      })),
    },
  };
}

/** The best of `reps` runs of `work`, as `units` per second. */
function bestRate(reps: number, units: number, work: () => void): number {
  let best = 0;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    work();
    best = Math.max(best, units / ((performance.now() - t) / 1000));
  }
  return Math.round(best);
}

export function machineSpeed(reps = 5): MachineSpeed {
  const bytes = Buffer.alloc(32 * MiB, 0x5a);
  const doc = deviceList();
  const ROUND_TRIPS = 200;
  return {
    sha512MBs: bestRate(reps, 32, () => createHash('sha512').update(bytes).digest()),
    jsonRoundTripsPerSecond: bestRate(reps, ROUND_TRIPS, () => {
      for (let i = 0; i < ROUND_TRIPS; i++) JSON.parse(JSON.stringify(doc));
    }),
  };
}

export const speedLine = (s: MachineSpeed) => `SHA-512 ${s.sha512MBs} MB/s, JSON ${s.jsonRoundTripsPerSecond} round trips/s (a 50-device answer)`;
