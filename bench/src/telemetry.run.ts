/**
 * Scenario 7 alone (`node_modules/.bin/tsx bench/src/telemetry.run.ts`): HTTP ingestion of play logs
 * against its upper bound (a bare node:http server on the same event loop), with the in-process ingest
 * consumer running and paused. BENCH_SECONDS (default 10; smoke 1), BENCH_CONNECTIONS (default 50).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import type { DeviceRepository } from '@pylon/devices';
import { startAllInOne } from '@pylon/launcher/all-in-one';
import { allInOneEnv } from '@pylon/launcher/all-in-one.config';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { seedPingDevices } from './devices.scenarios.js';
import { bareCeiling, drain, httpIngestionMeasured, type HttpIngestResult } from './telemetry.scenarios.js';

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
