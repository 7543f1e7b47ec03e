/**
 * Push events, delivery (issue 24): the delivery worker over the embedded stack (LMDB documents and
 * LMDB stream, as `npm start`) posting to a loopback receiver that answers 204.
 *   1. throughput: N events published at once for E endpoints; deliveries per second until the last arrives;
 *   2. change-to-delivery latency: events paced at R per second; receive time - event time, p50/p95.
 * Usage: node --import tsx bench/src/push-events.delivery.run.ts [events=10000] [endpoints=4] [rate=200] [seconds=5]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedPublisher, createLogger, PUSH_EVENTS_TOPIC, pushEventsOver, type PushEvent } from '@pylon/kit';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createLmdbStream } from '@pylon/adapters/lmdb';
import { WebhookRepository } from '@pylon/identity/features/webhooks/webhook.repository';
import { createEndpoint } from '@pylon/identity/features/webhooks/manage-webhooks';
import { startDeliveryWorker } from '@pylon/identity/features/webhooks/webhook-delivery.worker';

const [events, endpoints, rate, seconds] = [10_000, 4, 200, 5].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number, number, number];
const dir = await mkdtemp(join(tmpdir(), 'pylon-push-delivery-'));
const store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
const stream = createLmdbStream({ path: join(dir, 'stream'), retentionIntervalMs: 0 });
const publisher = new BufferedPublisher<PushEvent>(stream, PUSH_EVENTS_TOPIC, { maxWaitMs: 20 });
const emit = pushEventsOver(publisher);
const repo = new WebhookRepository(store);
const arrivals: { at: number; eventAt: number }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    arrivals.push({ at: Date.now(), eventAt: Date.parse((JSON.parse(Buffer.concat(chunks).toString()) as PushEvent).timestamp) });
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
for (let i = 0; i < endpoints; i++) await createEndpoint({ repo, now: Date.now }, `bench-acc-${i}`, { url });
const worker = await startDeliveryWorker({
  stream,
  repo,
  logger: createLogger({ level: 'silent' }),
  allowList: ['127.0.0.1'],
  pollMs: 50,
  endpointConcurrency: Number(process.env.CONCURRENCY ?? 8),
});

async function waitFor(n: number): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (arrivals.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${arrivals.length} of ${n} deliveries arrived`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const data = (i: number) => ({ device_id: `d-${i}`, name: `d-${i}`, device_group_id: null, device_tags: [] });

// 1. throughput: events spread over the endpoints' accounts.
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < events; i++) emit.emit(`bench-acc-${i % endpoints}`, 'device.registered', data(i));
await waitFor(events);
const burstSeconds = (performance.now() - t0) / 1000;
const throughput = Math.round(events / burstSeconds);
// CPU of this process (worker, store, stream and receiver) per delivery: what bounds throughput on a busy machine.
const cpu = process.cpuUsage(cpu0);
const cpuUsPerDelivery = Math.round((cpu.user + cpu.system) / events);

// 2. latency at a steady rate.
arrivals.length = 0;
const paced = rate * seconds;
const start = Date.now();
for (let i = 0; i < paced; i++) {
  const due = start + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  emit.emit(`bench-acc-${i % endpoints}`, 'device.registered', data(i));
}
await waitFor(paced);
const lat = arrivals.map((a) => a.at - a.eventAt).sort((a, b) => a - b);
const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))]!;
console.log(
  JSON.stringify({
    events,
    endpoints,
    burstSeconds: Number(burstSeconds.toFixed(2)),
    deliveriesPerSecond: throughput,
    cpuUsPerDelivery,
    pacedRate: rate,
    pacedEvents: paced,
    latencyMs: { p50: pct(50), p95: pct(95), max: lat[lat.length - 1] },
  }),
);
await worker.close();
await publisher.close();
await stream.close();
await store.close();
await new Promise((r) => server.close(r));
await rm(dir, { recursive: true, force: true });
