/**
 * Scenario 7 (telemetry pipeline, issue 17), side by side in one run:
 *   - raw chDB bulk insert of play logs, 10,000 rows per insert: the ceiling;
 *   - stream-to-store: the same rows published to the server's durable LMDB stream and written by
 *     its ingest consumer (as `npm start` runs them), from first publish to last row inserted;
 *   - HTTP ingestion: POST /player/{key}/playlogs at 1 and 100 rows per request (202 = durably held),
 *     load from a worker thread;
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

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, keys, seconds, connections, perRequest, warmup, tag } = workerData;
async function run(ms, record, phase) {
  const end = Date.now() + ms;
  let rows = 0, errors = 0, seq = 0; const lat = [];
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    let i = c;
    while (Date.now() < end) {
      const now = Date.now();
      const batch = [];
      for (let k = 0; k < perRequest; k++) batch.push({ id: tag + '-' + phase + '-' + c + '-' + (seq++), timestamp: new Date(now - 60000 + k).toISOString(), file_id: 'bench-file', duration: 10, type: 'image' });
      const t = performance.now();
      try {
        const r = await fetch(url + '/player/' + keys[i % keys.length] + '/playlogs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
        await r.arrayBuffer();
        if (r.status === 202) rows += perRequest; else errors++;
      } catch { errors++; }
      if (record) lat.push(performance.now() - t);
      i += connections;
    }
  }));
  return { rows, errors, lat };
}
(async () => {
  if (warmup > 0) await run(warmup * 1000, false, 'w');
  const { rows, errors, lat } = await run(seconds * 1000, true, 'm');
  lat.sort((a, b) => a - b);
  const q = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? 0);
  parentPort.postMessage({ rowsPerSecond: rows / seconds, requestsPerSecond: lat.length / seconds, p50: q(0.5), p99: q(0.99), errors });
})();
`;

export interface HttpIngestResult {
  name: string;
  rowsPerSecond: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Play-log rows per second accepted (202) over HTTP at `perRequest` rows per request. */
export function httpIngestion(o: { url: string; keys: string[]; seconds: number; connections: number; perRequest: number }): Promise<HttpIngestResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { ...o, warmup: WARMUP_SECONDS, tag: `bench-http-${o.perRequest}-${Date.now()}` } });
    w.once('message', (m: Omit<HttpIngestResult, 'name'>) => resolve({ name: `POST /player/{key}/playlogs, ${o.perRequest} row(s) per request`, ...m }));
    w.once('error', reject);
  });
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
