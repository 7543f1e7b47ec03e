/**
 * Scenario 2's bulk commands alone (`node_modules/.bin/tsx bench/src/bulk-commands.run.ts`):
 * sendBulkDeviceCommands for 1,000 devices x 2 commands through the gateway, as `npm run bench`
 * measures it, with the process's CPU per call (steadier than wall time on a shared machine). BENCH_DEVICES (default 1,000; smoke 100), BENCH_ROUNDS (default 10; smoke 1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceRepository } from '@pylon/devices';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { bulkCommandLatency, seedPingDevices } from './devices.scenarios.js';
import { BENCH_KEY as KEY, startBenchApp } from './bench-app.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const count = Number(process.env.BENCH_DEVICES ?? (smoke ? 100 : 1000));
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 10));
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-bulk-commands-'));
const app = await startBenchApp(dir);
const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
const ids = await seedPingDevices(repo, DEMO_ACCOUNT_ID, count);
// CPU of the whole process (server, its LMDB writer, and the small client) per call: steadier than wall time on a shared machine.
const cpu0 = process.cpuUsage();
const bulk = await bulkCommandLatency({ graphqlUrl: `${app.baseUrl}/graphql`, key: KEY, deviceIds: ids, rounds });
const cpu = process.cpuUsage(cpu0);
if (bulk.successCount !== count) throw new Error(`sendBulkDeviceCommands queued ${bulk.successCount} of ${count} devices`);
console.log(
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ' ',
    )}\nsendBulkDeviceCommands, ${count.toLocaleString('en')} devices x 2 commands, through the gateway (${rounds} calls): p50 ${bulk.p50} ms, min ${bulk.min} ms, max ${bulk.max} ms, CPU ${((cpu.user + cpu.system) / 1000 / (rounds + 1)).toFixed(1)} ms per call`,
);
await app.close();
await rm(dir, { recursive: true, force: true });
