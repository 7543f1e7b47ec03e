/**
 * Fleet-wide bulk at volume (issue 37.4), in one process on the embedded store (LMDB):
 *   tsx bench/src/bulk.scenarios.ts   (BENCH_BULK_DEVICES=10000 by default)
 * The floor: a raw documents-port insertMany of the N device documents (their registration-key
 * index included), the least any write of N devices costs. Then one startDeviceBulkJob through the
 * devices subgraph adds a tag to all N devices, timed from the mutation to the job's success
 * (resolve the targets, then chunks of 1,000: one read, one updateMany, one results write, two
 * progress saves), and its dry run's count; last, the same tag edit as one documents-port update
 * per device (500 in flight), the write path the job's batched updateMany replaces.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { FINISHED, JobRunner } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createDevicesSubgraph, newDeviceRecord } from '@pylon/devices';
import { DEVICES } from '@pylon/devices/domain/collections';

export interface BulkBenchResult {
  devices: number;
  floorMs: number;
  jobMs: number;
  dryRunMs: number;
  /** The same tag edit as one update per device (500 in flight), what the job's write path replaced. */
  unbatchedMs: number;
}

const START = `mutation($input: DeviceBulkJobInput!) { startDeviceBulkJob(input: $input) { success error jobId dryRun { targets } } }`;

/** Runs the floor and the job; throws when the job does not tag every device. */
export async function bulkTagScenario(o: { devices: number }): Promise<BulkBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-bulk-'));
  const store = await createLmdbDocumentStore({ path: dir });
  const jobs = new JobRunner(store, { maxPerAccount: 2, workers: 1 });
  const sg = createDevicesSubgraph({ documents: store, tokens: testTokens, organizations: { belongsTo: async () => false }, onlineWindowSeconds: 600, jobs });
  const run = subgraphRunner(() => sg, testPrincipal('bench'));
  try {
    const docs = Array.from({ length: o.devices }, (_, i) => ({
      id: `bench-${String(i).padStart(6, '0')}`,
      ...newDeviceRecord(`Bulk bench ${i}`, `bench-bulk-${i}`, { tags: ['bench'] }),
    }));
    // The floor, and the fleet the job then changes.
    const f0 = performance.now();
    await store.collection(DEVICES).insertMany('bench', docs);
    const floorMs = performance.now() - f0;

    const d0 = performance.now();
    const dry = await run(START, { input: { selector: { tags: ['bench'] }, action: 'ADD_TAGS', tags: ['bulk'], dryRun: true } });
    const dryRunMs = performance.now() - d0;
    const targets = (dry.data as { startDeviceBulkJob: { dryRun: { targets: number } | null } } | null)?.startDeviceBulkJob.dryRun?.targets;
    if (targets !== o.devices) throw new Error(`dry run counted ${targets}, expected ${o.devices}: ${JSON.stringify(dry)}`);

    const j0 = performance.now();
    const started = await run(START, { input: { selector: { tags: ['bench'] }, action: 'ADD_TAGS', tags: ['bulk'] } });
    const jobId = (started.data as { startDeviceBulkJob: { jobId: string | null } } | null)?.startDeviceBulkJob.jobId;
    if (!jobId) throw new Error(`the bulk job did not start: ${JSON.stringify(started)}`);
    for (;;) {
      const job = await jobs.get('bench', jobId);
      if (FINISHED.has(job.state)) {
        if (job.state !== 'succeeded' || job.progress.rowsDone !== o.devices || job.progress.rowsFailed !== 0)
          throw new Error(`bulk job ended ${job.state}: ${JSON.stringify(job.progress)} ${job.error ?? ''}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const jobMs = performance.now() - j0;
    const tagged = (await run('{ deviceCount(tag: ["bulk"]) }')).data as { deviceCount: number };
    if (tagged.deviceCount !== o.devices) throw new Error(`${tagged.deviceCount} devices tagged, expected ${o.devices}`);
    const u0 = performance.now();
    const devices = store.collection<{ tags: string[] }>(DEVICES);
    for (let i = 0; i < docs.length; i += 500) {
      await Promise.all(docs.slice(i, i + 500).map((d) => devices.update('bench', d.id, { $set: { tags: ['bench', 'bulk', 'unbatched'] } })));
    }
    const unbatchedMs = performance.now() - u0;
    return { devices: o.devices, floorMs, jobMs, dryRunMs, unbatchedMs };
  } finally {
    await jobs.close();
    await sg.runtime.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function printBulk(r: BulkBenchResult): void {
  const n = r.devices.toLocaleString('en');
  console.log(
    `${n} devices tagged in one bulk job: ${(r.jobMs / 1000).toFixed(2)} s (${Math.round(r.devices / (r.jobMs / 1000)).toLocaleString('en')} devices/s); ` +
      `floor (raw insertMany of the ${n} device documents): ${(r.floorMs / 1000).toFixed(2)} s, ratio ${(r.jobMs / r.floorMs).toFixed(1)}x; ` +
      `the same edit as one update per device: ${(r.unbatchedMs / 1000).toFixed(2)} s; dry run count: ${Math.round(r.dryRunMs)} ms`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printBulk(await bulkTagScenario({ devices: Number(process.env.BENCH_BULK_DEVICES ?? 10_000) }));
}
