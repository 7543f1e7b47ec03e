/**
 * `npm run bench`: scenarios measured side by side against their baselines in one run.
 * Scenario 1 (platform): the same 50-device list from a bare node:http handler over the same repository
 * (the floor), through the gateway, through the REST facade and from the devices subgraph served alone,
 * in interleaved rounds with each ratio's spread (bench/src/platform.scenarios.ts).
 * Scenario 2 (devices): pings per second accepted by POST /player/{key}/ping with 1,000 devices
 * online, and the latency of sendBulkDeviceCommands for 1,000 devices (bench/src/devices.scenarios.ts).
 * Scenario 3 (identity): the platform's gateway request with a warm and a cold principal cache and
 * with an OAuth bearer token, as ratios to scenario 1's gateway figure (bench/src/auth.scenarios.ts).
 * Scenario 4 (content): a 200 MB media upload against a local stream copy of the same file, and
 * peak RSS during it (bench/src/content.scenarios.ts).
 * Scenario 6 (scheduling): player manifest resolutions vs GET /devices/{id} (bench/src/scheduling.scenarios.ts).
 * Scenario 7 (telemetry): raw chDB bulk insert (the ceiling) vs stream-to-store vs HTTP ingestion of
 * play logs at 1 and 100 rows per request, and acknowledged-to-queryable (bench/src/telemetry.scenarios.ts).
 * Scenario 9 (analytics): playStatsByTime, deviceMetrics, audienceMetrics raw vs rollups vs direct SQL (bench/src/analytics.scenarios.ts).
 * Scenario 5 (data tables): batch create vs raw insertMany, CSV import, filtered sorted pages,
 * export (bench/src/datatables.scenarios.ts; 1M rows when run on its own).
 * Scenario 8 (start), first of all: spawn to /readyz of a subgraph process and of the all-in-one, from
 * dist/ and through tsx, and as the image runs it (bench/src/start.scenarios.ts).
 * Scenario 10 (reports): a proof-of-play CSV export of 1M plays vs the same SQL written to a file by
 * chDB, with the peak RSS above idle (bench/src/reports.scenarios.ts; last, on its own chDB dir).
 * Scenario 11 (web player): simulated /play screens long-polling one server, and how long a schedule
 * edit takes to reach all of their manifests (bench/src/web-player.scenarios.ts).
 * Scenario 14 (fleet-wide bulk): 10,000 devices tagged in one bulk job against a raw insert of the
 * same device documents (bench/src/bulk.scenarios.ts).
 * Scenario 13 (operator console): first load of /console on loopback and its JavaScript gzipped,
 * against the budgets of 1 s and 350 kB (bench/src/console.scenarios.ts).
 * Before the first scenario and after the last: the machine's speed on fixed probes (bench/src/machine-speed.ts).
 * Set BENCH_SECONDS / BENCH_CONNECTIONS to change the load (defaults 10 s, 10 connections).
 * BENCH_SMOKE=true (run by `npm test`): every scenario for about a second, no warm-up, fewer
 * devices; figures are not judged, but a scenario that fails or answers with errors fails the run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, createOps, InternalTokens, loadOperations } from '@pylon/kit';
import { createSubgraphHttp, listenHttp } from '@pylon/kit/serving';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import type { DeviceRepository } from '@pylon/devices';
import { brokenScenarios, probe, table, type LoadResult } from './load.js';
import { authScenario } from './auth.scenarios.js';
import { platformScenario, printPlatform, startFloor } from './platform.scenarios.js';
import { bearerToken } from './oauth.flow.js';
import { bulkCommandLatency, pingLoad, seedPingDevices } from './devices.scenarios.js';
import { printUpload, uploadScenario } from './content.scenarios.js';
import { dataTablesScenario } from './datatables.scenarios.js';
import { bulkTagScenario, printBulk } from './bulk.scenarios.js';
import { MANIFEST_REGISTRATION_KEY, manifestScenario } from './scheduling.scenarios.js';
import { compiledTable, compiledVsInterpreted } from './graphql-compiled.scenarios.js';
import { imageNode, printStart, startScenario } from './start.scenarios.js';
import { runCapacity, runDistributedCapacity } from './capacity.run.js';
import {
  ackToQueryable,
  ackToQueryableUnderLoad,
  bareCeiling,
  drain,
  httpIngestion,
  httpIngestionMeasured,
  rawInsertCeiling,
  streamToStore,
} from './telemetry.scenarios.js';
import { analyticsReport, generateTelemetry } from './analytics.scenarios.js';
import { printReports, reportsScenario } from './reports.scenarios.js';
import { webPlayerFleet } from './web-player.scenarios.js';
import { overrideFleet } from './override.scenarios.js';
import { consoleLoad, printConsoleLoad } from './console.scenarios.js';
import { deltaLines, previousResult, speedDeltaLines, startDeltaLines, uploadDeltaLines, writeResult, type BenchResult } from './results.js';
import { machineSpeed, speedLine } from './machine-speed.js';
import { addBenchDevices, BENCH_KEY as KEY, BENCH_OWNER, BENCH_PASSWORD, startBenchApp, withBenchApp } from './bench-app.js';

const smoke = process.env.BENCH_SMOKE === 'true';
// BENCH_ONLY=capacity: only the capacity scenario (it starts a server of its own); capacity-distributed: only its distributed topology.
if (process.env.BENCH_ONLY === 'capacity') {
  await runCapacity(smoke);
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'capacity-distributed') {
  await runDistributedCapacity(smoke);
  process.exit(0);
}
// Scenario 4's size and rounds: 200 MB in 3 interleaved rounds (2 MB, one round in smoke mode).
const UPLOAD = { sizeMb: smoke ? 2 : 200, rounds: smoke ? 1 : 3 };
// BENCH_ONLY=upload: only scenario 4, on a bench app of its own.
if (process.env.BENCH_ONLY === 'upload') {
  printUpload(await withBenchApp('upload', (app, dir) => uploadScenario({ baseUrl: app.baseUrl, key: KEY, dir, ...UPLOAD })));
  process.exit(0);
}
// The machine's speed before anything runs, and again at the end (bench/src/machine-speed.ts): what tells
// a slow host from a regression in the absolute figures (start, bulk commands), which have no floor beside them.
const speedAtStart = machineSpeed(smoke ? 3 : 5);
console.log(`machine speed at the start: ${speedLine(speedAtStart)}`);

// Scenario 8 (start) first, on a machine nothing else loads yet: run after the other scenarios (whose
// stores keep working in the background, e.g. chDB merging a million plays) it read about twice
// what it reads alone (4.5 against 2.1 s on 2026-11-30).
// Spawn to ready from dist/ (node) and from the sources (tsx); 1 start each in smoke mode. Full runs
// also start it as the image does (its Node, its compile cache), when that Node can be had.
const startRuns = smoke ? 1 : 5;
const starts = await startScenario(startRuns, smoke ? { waitForDemoHistory: false } : { imageNode: imageNode() });
printStart(starts, startRuns);

const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 10));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
// The same document everywhere: the REST facade's persisted listDevices operation, loaded as the
// facade loads it from the REST manifest (shared fragments appended), so it stands alone.
const QUERY = loadOperations('rest').get('listDevices')!;
const VARIABLES = { limit: 50, offset: 0 };

const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-'));
const app = await startBenchApp(dir, { SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD });

// 50 devices: the 8 demo ones plus 42 more.
const repo = (app.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
await addBenchDevices(app);

// The baseline: the devices subgraph served alone over HTTP, called with a signed internal token.
const direct = await createSubgraphHttp(app.subgraphs.devices!, { ops: createOps('bench-devices'), logger: createLogger({ level: 'silent' }), checks: {} });
const directServer = await listenHttp(direct.app, 0, '127.0.0.1');
const directUrl = `http://127.0.0.1:${(directServer.address() as { port: number }).port}/graphql`;
const internalToken = await new InternalTokens('s'.repeat(64), 3600).sign(BENCH_OWNER);

const gql = { 'content-type': 'application/json', 'x-service-apikey': KEY, 'apollo-require-preflight': 'true' };
const has50 = (b: unknown) => (b as { data?: { device?: unknown[] } })?.data?.device?.length === 50;
await probe(
  directUrl,
  {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pylon-internal-token': internalToken },
    body: JSON.stringify({ query: QUERY, variables: VARIABLES }),
  },
  has50,
  'direct',
);
await probe(`${app.baseUrl}/graphql`, { method: 'POST', headers: gql, body: JSON.stringify({ query: QUERY, variables: VARIABLES }) }, has50, 'gateway');
await probe(
  `${app.baseUrl}/devices?take=50&page=0`,
  { headers: { 'x-service-apikey': KEY } },
  (b) => (Array.isArray(b) ? b.length === 50 : (b as { data?: unknown[] })?.data?.length === 50),
  'rest',
);

console.log(
  `Pylon benchmarks: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}`,
);
console.log(`load: ${connections} connections × ${seconds} s per scenario (autocannon in a worker thread, loopback; NODE_ENV=production)\n`);

// Scenario 1: the floor (a bare node:http handler over the same repository), the gateway, REST and the
// devices subgraph alone, in interleaved rounds (bench/src/platform.scenarios.ts).
const gatewaySide = {
  name: 'gateway /graphql (API key)',
  url: `${app.baseUrl}/graphql`,
  method: 'POST' as const,
  headers: gql,
  body: { query: QUERY, variables: VARIABLES },
};
const shape = (
  (await (await fetch(gatewaySide.url, { method: 'POST', headers: gql, body: JSON.stringify(gatewaySide.body) })).json()) as { data: { device: unknown[] } }
).data.device[0];
const floor = await startFloor(repo, DEMO_ACCOUNT_ID, shape);
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 3));
const platform = await platformScenario({
  floor: { name: 'floor: bare node:http over the repository', url: floor.url },
  gateway: gatewaySide,
  rest: { name: 'REST GET /devices?take=50', url: `${app.baseUrl}/devices?take=50&page=0`, headers: { 'x-service-apikey': KEY } },
  direct: {
    name: 'devices subgraph alone (second line)',
    url: directUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pylon-internal-token': internalToken },
    body: { query: QUERY, variables: VARIABLES },
  },
  rounds,
  seconds,
  connections,
});
await new Promise((closed) => floor.server.close(closed));
printPlatform(platform, rounds);
const results: LoadResult[] = platform.loads;
const g = platform.loads[1]!;

// Scenario 3 (identity): the same gateway request with a warm and a cold principal cache, and with a bearer token.
const authResults = await authScenario({
  app,
  key: KEY,
  bearer: await bearerToken(app.oauthIssuer, { username: 'owner@demo.example', password: BENCH_PASSWORD }),
  query: QUERY,
  variables: VARIABLES,
  seconds,
  connections,
  gatewayRps: g.rps,
});

// Scenario 4 (content): a 200 MB upload against a local copy of the same bytes, in 3 interleaved
// rounds (UPLOAD). Before the scenarios that write telemetry (2's pings, 7):
// the store merging their rows in the background took a core from the upload (0.26× after scenario 7
// and 0.46× after scenario 2 on 2026-11-30, 0.53-0.83× alone).
const upload = await uploadScenario({ baseUrl: app.baseUrl, key: KEY, dir, ...UPLOAD });
printUpload(upload);

const deviceResults = await devicesScenario();

// Scenario 7 (telemetry): on the ping scenario's devices (bench-ping-<i>), in the same server.
const telemetryResults = await telemetryScenario();

// Scenario 6 (scheduling): manifest resolutions for a device in 50 overlapping schedules vs GET /devices/{id}.
const manifestResults = await manifestScenario({ baseUrl: app.baseUrl, key: KEY, accountId: DEMO_ACCOUNT_ID, repo, seconds, connections });

// Scenario 5 (data tables, in-process on its own LMDB store): small in smoke mode; the 1M-row
// figures come from `tsx --expose-gc bench/src/datatables.scenarios.ts` (BENCH_ROWS), see BENCHMARKS.md.
console.log('\nScenario 5: data tables\n');
await dataTablesScenario(
  smoke
    ? { rows: 2000, batchCalls: 5, importRows: 2000, pages: 10 }
    : { rows: Number(process.env.BENCH_ROWS ?? 100_000), batchCalls: 200, importRows: 100_000, pages: 300 },
);

// Scenario 14 (fleet-wide bulk, in-process on its own LMDB store): 10,000 devices tagged in one job vs a raw insert of them (1,000 in smoke mode).
console.log('\nScenario 14: fleet-wide bulk\n');
printBulk(await bulkTagScenario({ devices: smoke ? 1000 : Number(process.env.BENCH_BULK_DEVICES ?? 10_000) }));

/**
 * Scenario 7: the telemetry pipeline, raw ceiling vs stream-to-store vs HTTP ingestion. HTTP
 * acceptance (what a 202 costs the edge) is measured with the in-process ingest consumer paused,
 * then the consumer is resumed and timed alone on the backlog; the figures with the consumer
 * running are printed too. The upper bound: a bare node:http server on this event loop.
 */
async function telemetryScenario(): Promise<LoadResult[]> {
  const rows = smoke ? 20_000 : 500_000;
  const keys = Array.from({ length: smoke ? 100 : 1000 }, (_, i) => `bench-ping-${i}`);
  const { stream, analytics, consumer } = app.telemetry;
  const ceiling = await rawInsertCeiling(analytics, rows);
  const pipeline = await streamToStore(stream, analytics, rows);
  const one = await httpIngestion({ url: app.baseUrl, keys, seconds, connections, perRequest: 1 });
  const hundred = await httpIngestion({ url: app.baseUrl, keys, seconds, connections, perRequest: 100 });
  // A 202 waits for its batch to be flushed to disk; more players at once share each flush.
  const busy = await httpIngestionMeasured({ url: app.baseUrl, keys, seconds, connections: connections * 5, perRequest: 100 });
  busy.name += `, ${connections * 5} players at once`;
  await consumer.pause();
  const accepted = await httpIngestionMeasured({ url: app.baseUrl, keys, seconds, connections: connections * 5, perRequest: 100 });
  accepted.name += `, ${connections * 5} players, consumer paused`;
  const drained = await drain(stream, () => consumer.resume());
  const bare = await bareCeiling({ seconds, connections: connections * 5, perRequest: 100, parse: true });
  const visible = await ackToQueryable({ url: app.baseUrl, key: keys[0]!, store: analytics, samples: smoke ? 5 : 40 });
  // The same while other players send at a sustained rate the consumer keeps up with.
  const rate = smoke ? 5_000 : 50_000;
  const steady = await ackToQueryableUnderLoad({
    url: app.baseUrl,
    keys,
    store: analytics,
    seconds,
    connections: connections * 5,
    samples: smoke ? 3 : 20,
    rate,
  });
  await drain(stream, async () => undefined);
  const n = (x: number) => Math.round(x).toLocaleString('en');
  console.log('\nScenario 7: telemetry pipeline (play logs)\n');
  console.log(`  raw chDB bulk insert, 10,000 rows per insert (ceiling)     ${n(ceiling).padStart(10)} rows/s`);
  console.log(
    `  stream-to-store (LMDB stream -> ingest -> chDB)            ${n(pipeline).padStart(10)} rows/s   ${(pipeline / ceiling).toFixed(2)}x the ceiling (target >= 0.40x)`,
  );
  for (const h of [one, hundred, busy, accepted, bare])
    console.log(
      `  ${h.name.padEnd(58)} ${n(h.rowsPerSecond).padStart(10)} rows/s   ${n(h.requestsPerSecond)} req/s, p50 ${h.p50} ms, p99 ${h.p99} ms, ${h.errors} errors` +
        (h.serverCpuUsPerRequest ? `, CPU per request: server ${n(h.serverCpuUsPerRequest)} µs, load ${n(h.loadCpuUsPerRequest ?? 0)} µs` : ''),
    );
  console.log(`  then the consumer alone on that backlog: ${n(drained.messages)} held batches (100 rows each) in ${(drained.ms / 1000).toFixed(1)} s`);
  console.log(
    `\nHTTP ingestion at 100 rows/request: ${n(accepted.rowsPerSecond)} rows/s accepted (consumer paused), ${n(busy.rowsPerSecond)} with the consumer running (target >= 200,000 rows/s; a bare node:http server: ${n(bare.rowsPerSecond)})`,
  );
  console.log(`acknowledged-to-queryable: p50 ${visible.p50} ms, p95 ${visible.p95} ms, max ${visible.max} ms (target p95 < 2,000 ms)`);
  console.log(
    `acknowledged-to-queryable under a sustained ${n(rate)} rows/s (${n(steady.load.rowsPerSecond)} accepted): p50 ${steady.visible.p50} ms, p95 ${steady.visible.p95} ms, max ${steady.visible.max} ms`,
  );
  return [one, hundred, busy, accepted, bare].map((h) => ({ name: h.name, rps: h.requestsPerSecond, p50: h.p50, p99: h.p99, errors: h.errors }));
}

// Scenario 9 (analytics): raw vs rollups vs direct SQL over generated telemetry (20k play logs in
// smoke mode, 1M here; the large figures come from bench/src/analytics.run.ts, see BENCHMARKS.md).
{
  const plays = smoke ? 20_000 : 1_000_000;
  const sizes = { plays, pings: plays * 0.3, impressions: plays * 0.1 };
  const ms = await generateTelemetry(app.analytics, DEMO_ACCOUNT_ID, sizes);
  console.log(
    `\nScenario 9: analytics (${plays} play logs, ${sizes.pings} pings, ${sizes.impressions} impressions generated in ${(ms / 1000).toFixed(1)} s)\n`,
  );
  console.log(await analyticsReport(app, smoke));
}

// Compiled subgraph documents vs graphql-js on the list, the manifest and the analytics series
// (issue 36, item 5), request by request in this server, on scenario 6's screen and scenario 9's data.
console.log('\nGraphQL execution: compiled (graphql-jit) vs graphql-js, interleaved request by request\n');
console.log(
  compiledTable(
    await compiledVsInterpreted({
      baseUrl: app.baseUrl,
      key: KEY,
      manifestUrl: `${app.baseUrl}/player/${MANIFEST_REGISTRATION_KEY}/manifest`,
      pairs: smoke ? 2 : 200,
      warmup: smoke ? 0 : 20,
    }),
  ),
);

/** Scenario 2: the player API's ping path and bulk commands, on 1,000 devices of their own account (100 in smoke mode). */
async function devicesScenario(): Promise<LoadResult[]> {
  const count = smoke ? 100 : 1000;
  const online = count.toLocaleString('en');
  const ids = await seedPingDevices(repo, DEMO_ACCOUNT_ID, count);
  const pings = await pingLoad(`POST /player/{key}/ping (${online} devices online, ${connections} players at once)`, {
    url: app.baseUrl,
    count,
    seconds,
    connections,
  });
  // Each ping waits for its write to be flushed; more concurrent players share each flush.
  const busy = await pingLoad(`POST /player/{key}/ping (${online} devices online, ${connections * 5} players at once)`, {
    url: app.baseUrl,
    count,
    seconds,
    connections: connections * 5,
  });
  const rounds = smoke ? 1 : 10;
  const bulk = await bulkCommandLatency({ graphqlUrl: `${app.baseUrl}/graphql`, key: KEY, deviceIds: ids, rounds });
  if (bulk.successCount !== count) throw new Error(`sendBulkDeviceCommands queued ${bulk.successCount} of ${count} devices`);
  console.log('\nScenario 2: devices\n');
  console.log(table([pings, busy]));
  console.log(
    `\nsendBulkDeviceCommands, ${online} devices x 2 commands, through the gateway (${rounds} calls): p50 ${bulk.p50} ms, min ${bulk.min} ms, max ${bulk.max} ms (${bulk.successCount} devices queued per call)`,
  );
  return [pings, busy];
}

// Scenario 11 (web player): simulated /play screens long-polling, and the fan-out of a schedule edit to all of them.
console.log('\nScenario 11: web player fleet\n');
const fleet = await webPlayerFleet({
  baseUrl: app.baseUrl,
  key: KEY,
  screens: smoke ? 20 : Number(process.env.BENCH_SCREENS ?? 200),
  edits: smoke ? 2 : Number(process.env.BENCH_EDITS ?? 10),
  releaseWaiters: () => (app.subgraphs.devices as unknown as { runtime: { releaseWaiters(): void } }).runtime.releaseWaiters(),
});
// A failure is reported after the server has closed: process.exit() while the embedded store has a
// write transaction in flight never returns (lmdb-js waits for a callback the exiting thread will not run).
if (fleet.errors > 0) console.error(`web player fleet: ${fleet.errors} errors`);

// Scenario 12 (emergency override): real web-player screens in headless Chromium acknowledge an override and its cancel.
console.log('\nScenario 12: emergency override\n');
const override = await overrideFleet({
  baseUrl: app.baseUrl,
  key: KEY,
  screens: smoke ? 3 : Number(process.env.BENCH_OVERRIDE_SCREENS ?? 50),
  ...(process.env.CHROMIUM_PATH ? { chromiumPath: process.env.CHROMIUM_PATH } : {}),
}).catch((e: unknown) => {
  console.error(`emergency override: ${(e as Error).message}`);
  return { errors: 1 };
});
// Scenario 13 (operator console): first load of /console and its JavaScript size, against the issue's budgets.
console.log('\nScenario 13: operator console first load\n');
const consoleProblems = printConsoleLoad(await consoleLoad({ baseUrl: app.baseUrl, runs: smoke ? 1 : 20, browser: !smoke }));

await new Promise<void>((res) => directServer.close(() => res()));
await direct.server.stop();
await app.close();
await rm(dir, { recursive: true, force: true });

// Scenario 10 (reports): after the server closed its analytics store (chDB serves one data dir per process).
console.log('\nScenario 10: reports\n');
printReports(await reportsScenario({ rows: smoke ? 2000 : Number(process.env.BENCH_REPORT_ROWS ?? 1_000_000) }));

// Capacity: screens one all-in-one holds (a server process of its own, from dist/); two small steps in smoke mode.
console.log('\nCapacity: web-player screens on one all-in-one\n');
const capacity = await runCapacity(smoke);
// The distributed topology (every role its own process, Redis between them), one and two devices processes; two devices processes only in smoke mode.
console.log('\nCapacity: the distributed topology over Redis\n');
const capacityDistributed = await runDistributedCapacity(smoke);

const speedAtEnd = machineSpeed(smoke ? 3 : 5);
console.log(`\nmachine speed at the end: ${speedLine(speedAtEnd)} (at the start: ${speedLine(speedAtStart)})`);

const broken = brokenScenarios([...results, ...authResults, ...deviceResults, ...manifestResults, ...telemetryResults]);
if (fleet.errors > 0) broken.push(`web player fleet: ${fleet.errors} errors`);
if (override && override.errors > 0) broken.push(`emergency override: ${override.errors} screens did not acknowledge`);
broken.push(...consoleProblems);
if (broken.length) {
  console.error(`\nbroken scenarios:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
if (smoke) console.log('\nsmoke run: every scenario answered without errors (figures not judged)');
else {
  // The machine-readable result beside the dated runs, and what moved since the last one.
  const historyDir = fileURLToPath(new URL('../history', import.meta.url));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const current: BenchResult = {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.versions.node,
    ...(commit ? { commit } : {}),
    loads: [...results, ...authResults, ...deviceResults, ...manifestResults, ...telemetryResults],
    capacity,
    ...(capacityDistributed ? { capacityDistributed } : {}),
    starts,
    upload,
    speed: { start: speedAtStart, end: speedAtEnd },
  };
  const previous = previousResult(historyDir);
  console.log(`\nchange since ${previous ? `${previous.date}${previous.commit ? ` (${previous.commit})` : ''}` : 'nothing (first result)'}:`);
  for (const line of [
    ...speedDeltaLines(previous, current),
    ...deltaLines(previous, current),
    ...startDeltaLines(previous, current),
    ...uploadDeltaLines(previous, current),
  ])
    console.log(`  ${line}`);
  console.log(`result written to ${writeResult(historyDir, current)}`);
}
