/**
 * Devices benchmarks (issue 4): pings per second accepted by POST /player/{key}/ping with the
 * devices online, and the latency of sendBulkDeviceCommands for 1,000 devices through the gateway.
 * The ping load runs in a worker thread (its own event loop), like autocannon in load.ts.
 */
import { Worker } from 'node:worker_threads';
import { newDeviceRecord, type DeviceRepository } from '@pylon/devices';
import { WARMUP_SECONDS, type LoadResult } from './load.js';

/** Registers `count` devices with known keys (bench-ping-<i>) in the account; returns their ids. */
export async function seedPingDevices(repo: DeviceRepository, accountId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 200) {
    const made = await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, j) =>
        repo.addDevice(accountId, newDeviceRecord(`Ping bench ${String(i + j).padStart(4, '0')}`, `bench-ping-${i + j}`, { tags: ['bench'] })),
      ),
    );
    ids.push(...made.map((d) => d.id));
  }
  return ids;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, count, seconds, connections, warmup } = workerData;
const body = JSON.stringify({ cpu_usage: 23.5, memory_usage: 41, disk_usage: 57, player_version: '4.2.0', ip_address: '10.0.0.1' });
async function run(ms, record) {
  const end = Date.now() + ms;
  let n = 0, errors = 0; const lat = [];
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    let i = c;
    while (Date.now() < end) {
      const t = performance.now();
      try {
        const r = await fetch(url + '/player/bench-ping-' + (i % count) + '/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await r.arrayBuffer();
        if (r.status === 200) n++; else errors++;
      } catch { errors++; }
      if (record) lat.push(performance.now() - t);
      i += connections;
    }
  }));
  return { n, errors, lat };
}
(async () => {
  await run(warmup * 1000, false);
  const { n, errors, lat } = await run(seconds * 1000, true);
  lat.sort((a, b) => a - b);
  const q = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? 0);
  parentPort.postMessage({ rps: n / seconds, p50: q(0.5), p99: q(0.99), errors });
})();
`;

/** Pings per second, round-robin over `count` devices, `connections` concurrent players. */
export function pingLoad(name: string, o: { url: string; count: number; seconds: number; connections: number }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { ...o, warmup: WARMUP_SECONDS } });
    w.once('message', (m: { rps: number; p50: number; p99: number; errors: number }) => resolve({ name, ...m }));
    w.once('error', reject);
  });
}

/** sendBulkDeviceCommands for all `deviceIds` through the gateway, `rounds` times: latency per call. */
export async function bulkCommandLatency(o: {
  graphqlUrl: string;
  key: string;
  deviceIds: string[];
  rounds: number;
}): Promise<{ p50: number; max: number; min: number; successCount: number }> {
  const query = 'mutation($i: BulkDeviceCommandsInput!) { sendBulkDeviceCommands(input: $i) { totalDevices successCount failureCount } }';
  const headers = { 'content-type': 'application/json', 'x-service-apikey': o.key, 'apollo-require-preflight': 'true' };
  const times: number[] = [];
  let successCount = 0;
  for (let r = 0; r < o.rounds + 1; r++) {
    const t = performance.now();
    const res = await fetch(o.graphqlUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables: { i: { deviceIds: o.deviceIds, commands: [{ command: 'refresh' }, { command: 'volume', arg: '40' }] } } }),
    });
    const body = (await res.json()) as { data?: { sendBulkDeviceCommands?: { successCount: number } }; errors?: unknown };
    const ms = performance.now() - t;
    if (!body.data?.sendBulkDeviceCommands) throw new Error(`bulk commands failed: ${JSON.stringify(body).slice(0, 300)}`);
    successCount = body.data.sendBulkDeviceCommands.successCount;
    if (r > 0) times.push(ms); // the first call warms up
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(times[Math.floor(times.length / 2)]!), max: Math.round(times.at(-1)!), min: Math.round(times[0]!), successCount };
}
