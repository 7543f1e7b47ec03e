/**
 * Scenario 7 alone (`node_modules/.bin/tsx bench/src/telemetry.run.ts`): HTTP ingestion of play logs
 * against its upper bound (a bare node:http server on the same event loop), with the in-process ingest
 * consumer running and paused; the raw chDB insert ceiling against stream-to-store; and
 * acknowledged-to-queryable at rest and under the HTTP load with the consumer running.
 * BENCH_SECONDS (default 10; smoke 1), BENCH_CONNECTIONS (default 50), BENCH_ROWS (stream-to-store,
 * default 500,000), BENCH_VISIBLE_RATE (the sustained load of acknowledged-to-queryable, rows/s, default 50,000),
 * BENCH_ONLY (a comma list of bare, store, visible, running, paused).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import type { DeviceRepository } from '@pylon/devices';
import { startAllInOne } from '@pylon/launcher/all-in-one';
import { allInOneEnv } from '@pylon/launcher/all-in-one.config';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { UNLIMITED_SCREENS } from './bench-app.js';
import { seedPingDevices } from './devices.scenarios.js';
import {
  ackToQueryable,
  ackToQueryableUnderLoad,
  bareCeiling,
  drain,
  httpIngestionMeasured,
  rawInsertCeiling,
  streamToStore,
  type HttpIngestResult,
} from './telemetry.scenarios.js';

const smoke = process.env.BENCH_SMOKE === 'true';
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 10));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY ?? '';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-telemetry-'));
const env = loadConfig(allInOneEnv, {
  NODE_ENV: 'production',
  SIGNAGE_DATA_DIR: dir,
  PORT: '0',
  LEGACY_PORT: '0',
  LOG_LEVEL: 'silent',
  SIGNAGE_BOOTSTRAP_API_KEY: 'bench-key-0123456789abcdef',
  SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
  SIGNAGE_SIMULATOR: 'false',
  SIGNAGE_DEMO: 'false',
  RATE_LIMIT_POINTS: '1000000000',
  ...UNLIMITED_SCREENS,
});
const n = (x: number) => Math.round(x).toLocaleString('en');
const line = (h: HttpIngestResult, load: number[]) =>
  console.log(
    `  ${h.name.padEnd(66)} ${n(h.rowsPerSecond).padStart(9)} rows/s  ${n(h.requestsPerSecond)} req/s, p50 ${h.p50} ms, p99 ${h.p99} ms, ${h.errors} errors  (load ${load.map((l) => l.toFixed(1)).join(' ')})` +
      (h.serverCpuUsPerRequest ? `\n      CPU per request: server ${n(h.serverCpuUsPerRequest)} µs, load generator ${n(h.loadCpuUsPerRequest ?? 0)} µs` : ''),
  );
console.log(
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}, ${new Date().toISOString()}, ${seconds} s × ${connections} players`,
);

if (!only || only.includes('bare')) {
  for (const parse of [false, true]) line(await bareCeiling({ seconds, connections, perRequest: 100, parse }), loadavg());
}
const app = await startAllInOne(env, { logger: createLogger({ level: 'silent' }) });
const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
await seedPingDevices(repo, DEMO_ACCOUNT_ID, 1000);
const keys = Array.from({ length: 1000 }, (_, i) => `bench-ping-${i}`);
const loads = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
if (!only || only.includes('store')) {
  const rows = Number(process.env.BENCH_ROWS ?? (smoke ? 20_000 : 500_000));
  const { stream, analytics } = app.telemetry;
  // CPU of the whole process (event loop, chDB's and LMDB's threads) per row: steadier than rows/s on a shared machine.
  const cpu = async (run: () => Promise<number>) => {
    const c0 = process.cpuUsage();
    const rate = await run();
    const c = process.cpuUsage(c0);
    return { rate, usPerRow: (c.user + c.system) / rows };
  };
  const ceiling = await cpu(() => rawInsertCeiling(analytics, rows));
  const pipeline = await cpu(() => streamToStore(stream, analytics, rows));
  console.log(
    `  raw chDB bulk insert, 10,000 rows per insert (ceiling)     ${n(ceiling.rate).padStart(9)} rows/s  ${ceiling.usPerRow.toFixed(1)} µs CPU per row (load ${loads()})`,
  );
  console.log(
    `  stream-to-store (LMDB stream -> ingest -> chDB)            ${n(pipeline.rate).padStart(9)} rows/s  ${pipeline.usPerRow.toFixed(1)} µs CPU per row, ${(pipeline.rate / ceiling.rate).toFixed(2)}x the ceiling (load ${loads()})`,
  );
}
if (!only || only.includes('visible')) {
  const v = await ackToQueryable({ url: app.baseUrl, key: keys[0]!, store: app.telemetry.analytics, samples: smoke ? 5 : 40 });
  console.log(`  acknowledged-to-queryable at rest: p50 ${v.p50} ms, p95 ${v.p95} ms, max ${v.max} ms (target p95 < 2,000 ms)  (load ${loads()})`);
  // Under the 100-rows-per-request load, consumer running: back to back (the records queue behind what
  // the players send), then at a sustained rate the consumer keeps up with (BENCH_VISIBLE_RATE rows/s).
  const rate = Number(process.env.BENCH_VISIBLE_RATE ?? (smoke ? 5_000 : 50_000));
  for (const paced of [undefined, rate]) {
    const { load, visible } = await ackToQueryableUnderLoad({
      url: app.baseUrl,
      keys,
      store: app.telemetry.analytics,
      seconds,
      connections,
      samples: smoke ? 3 : 20,
      rate: paced,
    });
    console.log(
      `  acknowledged-to-queryable under ${paced ? `a sustained ${n(paced)} rows/s` : 'a back-to-back'} load (${n(load.rowsPerSecond)} rows/s accepted): p50 ${visible.p50} ms, p95 ${visible.p95} ms, max ${visible.max} ms  (load ${loads()})`,
    );
    await drain(app.telemetry.stream, async () => undefined);
  }
}
if (!only || only.includes('running')) {
  const r = await httpIngestionMeasured({ url: app.baseUrl, keys, seconds, connections, perRequest: 100 });
  line({ ...r, name: `${r.name}, consumer running` }, loadavg());
}
if (!only || only.includes('paused')) {
  await app.telemetry.consumer.pause();
  const r = await httpIngestionMeasured({ url: app.baseUrl, keys, seconds, connections, perRequest: 100 });
  line({ ...r, name: `${r.name}, consumer paused` }, loadavg());
  const drained = await drain(app.telemetry.stream, () => app.telemetry.consumer.resume());
  console.log(`  then the consumer alone: ${n(drained.messages)} held batches in ${(drained.ms / 1000).toFixed(1)} s`);
}
await app.close();
await rm(dir, { recursive: true, force: true });
