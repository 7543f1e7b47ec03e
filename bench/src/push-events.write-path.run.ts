/**
 * Push events, write-path cost (issue 24): device mutations (createDevice + updateDevice through
 * the devices subgraph, in-process, embedded LMDB store) with and without event production to the
 * durable LMDB stream. Runs alternate (off, on, off, on, ...) so machine noise hits both alike;
 * prints the mutations per second of each and the cost (on vs off). Usage:
 *   node --import tsx bench/src/push-events.write-path.run.ts [mutationsPerRun=400] [runs=4]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedPublisher, PUSH_EVENTS_TOPIC, pushEventsOver, type PushEvent } from '@pylon/kit';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createLmdbStream } from '@pylon/adapters/lmdb';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createDevicesSubgraph } from '@pylon/devices';

const perRun = Number(process.argv[2] ?? 400);
const runs = Number(process.argv[3] ?? 4);
const dir = await mkdtemp(join(tmpdir(), 'pylon-push-bench-'));
const store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
const stream = createLmdbStream({ path: join(dir, 'stream'), retentionIntervalMs: 0 });
const publisher = new BufferedPublisher<PushEvent>(stream, PUSH_EVENTS_TOPIC, { maxWaitMs: 20 });
const base = { documents: store, tokens: testTokens, onlineWindowSeconds: 600, organizations: { belongsTo: async () => false } };
const off = createDevicesSubgraph({ ...base, settings: { sweepIntervalSeconds: 0 } });
const on = createDevicesSubgraph({ ...base, pushEvents: pushEventsOver(publisher), settings: { sweepIntervalSeconds: 0 } });
const who = testPrincipal('bench-acc');
const CREATE = 'mutation($i: CreateDeviceInput!) { createDevice(input: $i) { success device { id } } }';
const UPDATE = 'mutation($id: ID!, $i: UpdateDeviceInput!) { updateDevice(id: $id, input: $i) { success } }';

async function run(sg: typeof on, label: string, n: number): Promise<number> {
  const exec = subgraphRunner(() => sg, who);
  const t = performance.now();
  for (let i = 0; i < n; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, j) => {
        const r = await exec(CREATE, { i: { name: `${label} ${i + j}`, tags: ['bench'] } });
        const id = (r.data as { createDevice: { device: { id: string } } }).createDevice.device.id;
        await exec(UPDATE, { id, i: { name: `${label} ${i + j} b` } });
      }),
    );
  }
  return (2 * n) / ((performance.now() - t) / 1000);
}

await run(off, 'warm', 100);
await run(on, 'warm', 100);
const rates: { off: number[]; on: number[] } = { off: [], on: [] };
for (let r = 0; r < runs; r++) {
  rates.off.push(await run(off, `off${r}`, perRun));
  rates.on.push(await run(on, `on${r}`, perRun));
}
await publisher.flush();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mOff = median(rates.off);
const mOn = median(rates.on);
console.log(
  JSON.stringify({
    mutationsPerRun: 2 * perRun,
    runs,
    offPerSecond: rates.off.map(Math.round),
    onPerSecond: rates.on.map(Math.round),
    medianOff: Math.round(mOff),
    medianOn: Math.round(mOn),
    costPercent: Number((((mOff - mOn) / mOff) * 100).toFixed(1)),
    eventsPublished: publisher.stats.published,
  }),
);
await publisher.close();
await off.runtime.close();
await on.runtime.close();
await stream.close();
await store.close();
await rm(dir, { recursive: true, force: true });
