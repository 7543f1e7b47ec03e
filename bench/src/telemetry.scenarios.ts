/**
 * Scenario 7 (telemetry pipeline, issue 17), side by side in one run:
 *   - raw chDB bulk insert of play logs, 10,000 rows per insert: the ceiling;
 *   - stream-to-store: the same rows published to the server's durable LMDB stream and written by
 *     its ingest consumer (as `npm start` runs them), from first publish to last row inserted;
 *   - HTTP ingestion: POST /player/{key}/playlogs at 1 and 100 rows per request (202 = durably held),
 *     load from a worker thread or a child process (then CPU per request is measured on both sides),
 *     with the ingest consumer running and paused (acceptance alone), and the consumer's drain time;
 *   - a bare node:http server reading and parsing the same bodies: the bound of any implementation;
 *   - acknowledged-to-queryable: a 202'd play log until the store answers it, p50/p95.
 */
import { Worker } from 'node:worker_threads';
import type { AnalyticsStore, EventStream } from '@pylon/kit';
import { WARMUP_SECONDS } from './load.js';

const row = (account: string, i: number, t0: number) => ({
  id: `${account}-${i}`,
  account_id: account,
  device_id: `d${i % 50}`,
  file_id: `f${i % 20}`,
  file_name: `File ${i % 20}`,
  timestamp: new Date(t0 + i).toISOString(),
  duration: 10,
  type: 'image',
  playlist_id: 'p1',
  schedule_id: 's1',
  file_known: 1,
});

const count = async (store: AnalyticsStore, account: string) =>
  Number((await store.query<{ c: number }>('SELECT count() AS c FROM play_logs WHERE account_id = {a:String}', { a: account }))[0]!.c);

/** Rows per second of raw bulk inserts (10,000 rows each). */
export async function rawInsertCeiling(store: AnalyticsStore, rows: number): Promise<number> {
  const t0 = Date.now() - 3_600_000;
  const account = `bench-raw-${Date.now()}`;
  const start = performance.now();
  for (let i = 0; i < rows; i += 10_000)
    await store.insert(
      'play_logs',
      Array.from({ length: Math.min(10_000, rows - i) }, (_, j) => row(account, i + j, t0)),
    );
  return rows / ((performance.now() - start) / 1000);
}

/** Rows per second from the first publish to the last row in the store, through the server's durable stream and its ingest consumer. */
export async function streamToStore(stream: EventStream, store: AnalyticsStore, rows: number): Promise<number> {
  const t0 = Date.now() - 3_600_000;
  const account = `bench-stream-${Date.now()}`;
  const start = performance.now();
  for (let i = 0; i < rows; i += 5_000) {
    await stream.publish(
      'telemetry.plays',
      Array.from({ length: Math.min(5_000, rows - i) }, (_, j) => ({ key: account, value: row(account, i + j, t0) })),
    );
  }
  while ((await count(store, account)) < rows) await new Promise((r) => setTimeout(r, 20));
  return rows / ((performance.now() - start) / 1000);
}

/**
 * The load generator: a worker thread (its own core, not the server's event loop) with a keep-alive
 * `http.Agent` holding one socket per simulated player, and bodies built by joining pre-serialised
 * pieces around a per-request id prefix (every record keeps a unique client id, but no object is
 * built or stringified per request). Counts 202s only.
 */
const WORKER = `
const http = require('node:http');
const { parentPort, workerData: threadData } = require('node:worker_threads');
// In a worker thread, or a child process (data in PYLON_BENCH_LOAD, result on stdout).
const workerData = threadData ?? JSON.parse(process.env.PYLON_BENCH_LOAD);
const report = (m) => (parentPort ? parentPort.postMessage(m) : process.stdout.write(JSON.stringify(m), () => process.exit(0)));
const { url, keys, seconds, connections, perRequest, warmup, tag, rate } = workerData;
// With a rate (rows/s over all players), each player sends one request per interval instead of back to back.
const interval = rate > 0 ? (connections * perRequest * 1000) / rate : 0;
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
const paths = keys.map((k) => '/player/' + k + '/playlogs');
// One request's records as text pieces; the id prefix and the timestamp go between them.
const recordTail = (k) => '-' + k + '","timestamp":"';
const tail = '","file_id":"bench-file","duration":10,"type":"image"}';
function body(prefix, stamp) {
  let s = '[';
  for (let k = 0; k < perRequest; k++) s += (k ? ',{"id":"' : '{"id":"') + prefix + recordTail(k) + stamp + tail;
  return s + ']';
}
function post(path, payload) {
  return new Promise((resolve) => {
    const req = http.request({ host: target.hostname, port: target.port, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(payload);
  });
}
async function run(ms, record, phase) {
  const end = Date.now() + ms;
  let rows = 0, errors = 0, seq = 0; const lat = [];
  // Each request is stamped when it is sent, a minute back (inside the service's time window): a
  // player's records follow what it sent before, as a real player's plays do. (One stamp shared by
  // every request of a second made each device's records overlap its stored ones in time, so every
  // batch also paid the exactly-once lookup of its ids: BENCHMARKS.md has that worst case.)
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    let i = c;
    let next = Date.now() + (c * interval) / connections;
    while (Date.now() < end) {
      if (interval > 0) {
        const wait = next - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next += interval;
        if (Date.now() >= end) break;
      }
      const payload = body(tag + '-' + phase + '-' + c + '-' + (seq++), new Date(Date.now() - 60000).toISOString());
      const t = performance.now();
      const status = await post(paths[i % paths.length], payload);
      if (status === 202) rows += perRequest; else errors++;
      if (record) lat.push(performance.now() - t);
      i += connections;
    }
  }));
  return { rows, errors, lat };
}
(async () => {
  if (warmup > 0) await run(warmup * 1000, false, 'w');
  const cpu0 = process.cpuUsage();
  const { rows, errors, lat } = await run(seconds * 1000, true, 'm');
  const cpu = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  const q = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? 0);
  agent.destroy();
  report({ rowsPerSecond: rows / seconds, requestsPerSecond: lat.length / seconds, p50: q(0.5), p99: q(0.99), errors,
    loadCpuUsPerRequest: parentPort ? undefined : (cpu.user + cpu.system) / Math.max(1, lat.length) });
})();
`;

export interface HttpIngestResult {
  name: string;
  rowsPerSecond: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** With the load in a child process: CPU microseconds per request of this (the server's) process, and of the load generator's. */
  serverCpuUsPerRequest?: number;
  loadCpuUsPerRequest?: number;
}

/**
 * The same load from a child process, so this process's CPU time is the server's alone: CPU per
 * request on each side, which a busy shared machine slows down less than it does throughput.
 */
export async function httpIngestionMeasured(o: {
  url: string;
  keys: string[];
  seconds: number;
  connections: number;
  perRequest: number;
  /** Rows per second over all players (paced); without it each player sends back to back. */
  rate?: number;
}): Promise<HttpIngestResult> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['-e', WORKER], {
    env: { ...process.env, PYLON_BENCH_LOAD: JSON.stringify({ ...o, warmup: WARMUP_SECONDS, tag: `bench-http-${o.perRequest}-${Date.now()}` }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  // The server's CPU over the measured part only: sampled after the warm-up, until the child answers.
  let cpu0: NodeJS.CpuUsage | undefined;
  const warm = setTimeout(() => (cpu0 = process.cpuUsage()), WARMUP_SECONDS * 1000);
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const cpu = process.cpuUsage(cpu0);
  clearTimeout(warm);
  if (code !== 0) throw new Error(`the load generator exited with ${code}`);
  const m = JSON.parse(out) as Omit<HttpIngestResult, 'name'>;
  return {
    name: `POST /player/{key}/playlogs, ${o.perRequest} row(s) per request`,
    ...m,
    serverCpuUsPerRequest: (cpu.user + cpu.system) / Math.max(1, m.requestsPerSecond * o.seconds),
  };
}

/** Rows per second answered 202 over HTTP at `perRequest` rows per request (`path` defaults to the play-log route). */
export function httpIngestion(o: { url: string; keys: string[]; seconds: number; connections: number; perRequest: number }): Promise<HttpIngestResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { ...o, warmup: WARMUP_SECONDS, tag: `bench-http-${o.perRequest}-${Date.now()}` } });
    w.once('message', (m: Omit<HttpIngestResult, 'name'>) => {
      resolve({ name: `POST /player/{key}/playlogs, ${o.perRequest} row(s) per request`, ...m });
      void w.terminate();
    });
    w.once('error', reject);
  });
}

/**
 * The upper bound of any implementation on this machine: a bare node:http server (on this process's
 * event loop, like the real one) that reads the body, parses it (`parse`) or not, and answers 202
 * `{"accepted":N}`, loaded by the same generator.
 */
export async function bareCeiling(o: { seconds: number; connections: number; perRequest: number; parse: boolean }): Promise<HttpIngestResult> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const n = o.parse ? (JSON.parse(text) as unknown[]).length : o.perRequest;
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(`{"accepted":${n}}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const r = await httpIngestionMeasured({ url, keys: ['bare-key-0123456789'], seconds: o.seconds, connections: o.connections, perRequest: o.perRequest });
    return { ...r, name: `bare node:http server, ${o.perRequest} rows per request${o.parse ? ', JSON.parse' : ''}` };
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Starts the consumer (`start`) and waits until its group has no lag left: messages and milliseconds. */
export async function drain(stream: EventStream, start: () => Promise<void>, limitMs = 600_000): Promise<{ messages: number; ms: number }> {
  const lag = async () => (await stream.lag()).filter((l) => l.group === 'analytics-ingest').reduce((sum, l) => sum + l.lag, 0);
  const messages = await lag();
  const t0 = performance.now();
  await start();
  while ((await lag()) > 0) {
    if (performance.now() - t0 > limitMs) throw new Error(`the consumer did not catch up within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { messages, ms: performance.now() - t0 };
}

/**
 * Acknowledged-to-queryable while other players send 100-row requests: back to back (a load the
 * consumer cannot keep up with on this machine, so the records queue), or paced at `rate` rows/s.
 * The samples go through `keys[0]`, the load through the others.
 */
export async function ackToQueryableUnderLoad(o: {
  url: string;
  keys: string[];
  store: AnalyticsStore;
  seconds: number;
  connections: number;
  samples: number;
  rate?: number;
}): Promise<{ load: HttpIngestResult; visible: { p50: number; p95: number; max: number } }> {
  const load = httpIngestionMeasured({ url: o.url, keys: o.keys.slice(1), seconds: o.seconds, connections: o.connections, perRequest: 100, rate: o.rate });
  await new Promise((r) => setTimeout(r, Math.min(2000, o.seconds * 200)));
  const visible = await ackToQueryable({ url: o.url, key: o.keys[0]!, store: o.store, samples: o.samples });
  return { load: await load, visible };
}

/** Milliseconds from a 202 to the row being answered by the store, over `samples` play logs. */
export async function ackToQueryable(o: {
  url: string;
  key: string;
  store: AnalyticsStore;
  samples: number;
}): Promise<{ p50: number; p95: number; max: number }> {
  const times: number[] = [];
  for (let s = 0; s < o.samples; s++) {
    const id = `bench-visible-${Date.now()}-${s}`;
    const res = await fetch(`${o.url}/player/${o.key}/playlogs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ id, timestamp: new Date().toISOString(), file_id: 'bench-file', duration: 1, type: 'image' }]),
    });
    if (res.status !== 202) throw new Error(`play log refused with ${res.status}`);
    const acked = performance.now();
    for (;;) {
      const found = await o.store.query<{ c: number }>('SELECT count() AS c FROM play_logs WHERE id = {id:String}', { id });
      if (Number(found[0]!.c) > 0) break;
      if (performance.now() - acked > 30_000) throw new Error('a play log was not queryable within 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    times.push(performance.now() - acked);
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(times.length * p))]!);
  return { p50: q(0.5), p95: q(0.95), max: Math.round(times.at(-1)!) };
}
