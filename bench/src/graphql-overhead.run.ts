/**
 * The fixed cost of one authenticated GraphQL request through the all-in-one (issue 18g):
 * `node_modules/.bin/tsx bench/src/graphql-overhead.run.ts`. The server runs in this process; the
 * HTTP client runs in a child process, so this process's CPU (process.cpuUsage: every thread,
 * chDB's included) is the server's alone. Each case sends BENCH_REQUESTS (default 300) sequential
 * requests per round, the cases interleaved over BENCH_ROUNDS (default 5) rounds; the figures are
 * CPU µs per request (the median round) and wall p50/p95 over every request. CPU per request is
 * the robust figure on a shared machine: queueing behind other processes costs wall time, not CPU.
 *
 * Cases: `{ __typename }`, scenario 1's 50-device list (the persisted listDevices document, and GET /devices) and
 * playStatsByTime on the day rollup (90 rows) over HTTP with the API key; the same analytics query
 * through the in-process layers (`client.execute`: auth + gateway; `gateway.execute`; the analytics
 * subgraph's own `execute`) and its SQL run directly on the store. BENCH_ONLY: a comma list of
 * case names to run. BENCH_CASE_LOOP=<case>: only that case, BENCH_REQUESTS × BENCH_ROUNDS times,
 * with BENCH_PROFILE=<file.cpuprofile> a CPU profile of that loop.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectDeviceMetrics } from '@pylon/analytics/features/device-metrics/device-metrics.queries';
import { selectPlayStatsByTime } from '@pylon/analytics/features/play-stats/play-stats.queries';
import { toSeriesQuery } from '@pylon/analytics/shared/analytics-args';
import { loadOperations, POLICIES, type Principal } from '@pylon/kit';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { generateTelemetry, times } from './analytics.scenarios.js';
import { addBenchDevices, BENCH_KEY as KEY, BENCH_OWNER, startBenchApp } from './bench-app.js';
import { childHttpClient } from './child-http-client.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);
const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const loop = process.env.BENCH_CASE_LOOP;

const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-gql-'));
const app = await startBenchApp(dir, process.env.BENCH_AUDIT_READS ? { AUDIT_READS: process.env.BENCH_AUDIT_READS } : {});
await addBenchDevices(app);
await generateTelemetry(app.analytics, DEMO_ACCOUNT_ID, { plays: 200_000, pings: 1000, impressions: 1000 });

const DEVICES = { query: loadOperations('rest').get('listDevices')!, variables: { limit: 50, offset: 0 } };
const PLAYS = {
  query: '{ playStatsByTime(startDate: "2026-01-01", endDate: "2026-03-31", interval: DAY) { periodStart totalPlays totalDuration avgDuration } }',
};
const TYPENAME = { query: '{ __typename }' };
const TEN = Array.from({ length: 10 }, (_, i) => `d${i}`);
const METRICS = {
  query: `{ deviceMetrics(startDate: "2026-01-01", endDate: "2026-03-31", interval: DAY, deviceId: ${JSON.stringify(TEN)}) { deviceId periodStart avgCpuUsage uptimePercentage alertCount } }`,
};
const principal = { accountId: DEMO_ACCOUNT_ID, policies: POLICIES } as unknown as Principal;
const analyticsSubgraph = app.subgraphs.analytics!;

const bareServer = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end('{"data":{"__typename":"Query"}}\n');
  });
});
bareServer.keepAliveTimeout = 600_000;
bareServer.listen(0, '127.0.0.1');
await once(bareServer, 'listening');
const bare = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/graphql`;

/** A child-process HTTP client bound to one request (child-http-client.ts). */
const httpClient = (body: unknown, url = `${app.baseUrl}/graphql`) => childHttpClient(url, KEY, body);

/** An in-process case: `n` sequential calls, their wall times. */
const inProcess = (f: () => Promise<unknown>) => ({ run: (n: number) => times(n, f), close: () => undefined });

const ok = (r: { errors?: unknown; status?: number }) => {
  if (r.errors) throw new Error(JSON.stringify(r.errors).slice(0, 300));
  return r;
};

const cases: Record<string, { run(n: number): Promise<number[]>; close(): unknown }> = {
  // What the process spends meanwhile with no request at all (timers, the consumer's polls): the noise floor.
  idle: { run: async () => [0], close: () => undefined },
  // The floor: a bare node:http server on the same event loop answering a fixed JSON body.
  'http bare node:http': httpClient(TYPENAME, bare),
  'http typename': httpClient(TYPENAME),
  'client.execute typename': inProcess(async () => ok(await app.client.execute(TYPENAME, { apiKey: KEY, via: 'rest' }))),
  'gateway.execute typename': inProcess(async () => ok(await app.gateway.execute(TYPENAME, BENCH_OWNER, 'bench'))),
  'http devices(50)': httpClient(DEVICES),
  // Scenario 1's REST side: the same 50 devices through the REST facade (GET, the reference body).
  'http REST devices(50)': httpClient(null, `${app.baseUrl}/devices?take=50&page=0`),
  'client.execute devices(50)': inProcess(async () => ok(await app.client.execute(DEVICES, { apiKey: KEY, via: 'rest' }))),
  'gateway.execute devices(50)': inProcess(async () => ok(await app.gateway.execute(DEVICES, BENCH_OWNER, 'bench'))),
  'http playStatsByTime rollup': httpClient(PLAYS),
  // As scenario 9 calls it: fetch (undici) on this process's own event loop, client and server sharing it.
  'fetch in-process playStatsByTime': inProcess(async () => {
    const res = await fetch(`${app.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': KEY },
      body: JSON.stringify(PLAYS),
    });
    return ok((await res.json()) as never);
  }),
  'client.execute playStatsByTime': inProcess(async () => ok(await app.client.execute(PLAYS, { apiKey: KEY, via: 'rest' }))),
  'gateway.execute playStatsByTime': inProcess(async () => ok(await app.gateway.execute(PLAYS, BENCH_OWNER, 'bench'))),
  'subgraph.execute playStatsByTime': inProcess(async () => {
    const ctx = { principal: BENCH_OWNER, requestId: 'bench', scope: new Map() };
    return ok((await analyticsSubgraph.execute(PLAYS, ctx)) as never);
  }),
  'direct SQL playStatsByTime rollup': inProcess(() =>
    selectPlayStatsByTime(app.analytics, toSeriesQuery(principal, { startDate: '2026-01-01', endDate: '2026-03-31', interval: 'DAY' }), false, 'DAY'),
  ),
  'http deviceMetrics(900 rows) rollup': httpClient(METRICS),
  'gateway.execute deviceMetrics': inProcess(async () => ok(await app.gateway.execute(METRICS, BENCH_OWNER, 'bench'))),
  'direct SQL deviceMetrics rollup': inProcess(() =>
    selectDeviceMetrics(
      app.analytics,
      { ...toSeriesQuery(principal, { startDate: '2026-01-01', endDate: '2026-03-31', interval: 'DAY' }), deviceIds: TEN },
      'HOUR',
    ),
  ),
};
const names = Object.keys(cases).filter((n) => !only.length || only.includes(n));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

if (loop) {
  const c = cases[loop];
  if (!c) throw new Error(`BENCH_CASE_LOOP: no case '${loop}' (${Object.keys(cases).join(', ')})`);
  await c.run(200);
  // BENCH_PROFILE=<file>: a CPU profile of the timed loop alone (not start-up or data generation).
  const session = process.env.BENCH_PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await c.run(REQUESTS * ROUNDS);
  const cpu = process.cpuUsage(c0);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.BENCH_PROFILE!, JSON.stringify(profile));
    session.disconnect();
  }
  console.log(
    `${loop}: ${((cpu.user + cpu.system) / (REQUESTS * ROUNDS)).toFixed(0)} µs CPU per request, ${((performance.now() - t0) / (REQUESTS * ROUNDS)).toFixed(2)} ms wall mean`,
  );
} else {
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}, ${new Date().toISOString()}, ${ROUNDS} rounds × ${REQUESTS} sequential requests per case, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const n of names) await cases[n]!.run(50); // warm-up: JIT, plan and document caches
  const cpu: Record<string, number[]> = {};
  const wall: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of names) {
      const c0 = process.cpuUsage();
      const lat = await cases[n]!.run(REQUESTS);
      // The work a request leaves behind (its audit record published, consumed, inserted) is
      // charged to it: the clock runs on until that pipeline has settled.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const c = process.cpuUsage(c0);
      (cpu[n] ??= []).push((c.user + c.system) / REQUESTS);
      (wall[n] ??= []).push(...lat);
    }
  }
  console.log(`\n| case | CPU µs / request (median round; min–max) | wall p50 ms | wall p95 ms |\n|---|---:|---:|---:|`);
  for (const n of names) {
    const xs = cpu[n]!;
    console.log(
      `| ${n} | ${pct(xs, 50).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}) | ${pct(wall[n]!, 50).toFixed(2)} | ${pct(wall[n]!, 95).toFixed(2)} |`,
    );
  }
  console.log(`gateway single-fetch: ${JSON.stringify(app.gateway.singleFetch)}`);
  console.log(
    `load after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}
for (const n of Object.keys(cases)) cases[n]!.close();
bareServer.close();
await app.close();
await rm(dir, { recursive: true, force: true });
