/**
 * Issue 20 (`pnpm --filter @pylon/bench exec tsx src/export-job.run.ts`): a 1,000,000-row table
 * exported as a job (GET /datatables/{id}/rows/export over EXPORT_JOB_THRESHOLD_ROWS answers 202; the
 * job writes the CSV to the blob store; GET /jobs/{id} until done, then the signed link downloads
 * it). The table is filled first by an import job of a generated CSV. Prints the export's rows/s and
 * the peak RSS above idle of this process (server in-process) while the export job runs, split into
 * anonymous (what the export allocates) and file-backed (LMDB's map of the rows it reads).
 * BENCH_EXPORT_ROWS changes the size.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY as KEY, BENCH_PASSWORD, startBenchApp } from './bench-app.js';
import { sampleMemory, uploadMultipart } from './jobs.bench.js';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-export-job-'));
const files = await mkdtemp(join(tmpdir(), 'pylon-bench-export-files-'));
const csvPath = join(files, 'rows.csv');
{
  const csv = createWriteStream(csvPath);
  csv.write('n,label,price,city\n');
  for (let i = 0; i < ROWS; i++) if (!csv.write(`${i},item ${i},${(i % 997) / 10},${['Oslo', '=Lyon', 'Porto', 'Graz'][i % 4]}\n`)) await once(csv, 'drain');
  csv.end();
  await once(csv, 'finish');
}

const app = await startBenchApp(dir, { IMPORT_JOB_THRESHOLD_BYTES: '0', EXPORT_JOB_THRESHOLD_ROWS: '0', SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD });
const headers = { 'x-service-apikey': KEY };

type Job = { id: string; state: string; progress: { rows_done: number }; result: { rows?: number; download_url?: string; imported?: number } | null };
const getJob = async (id: string) => (await (await fetch(`${app.baseUrl}/jobs/${id}`, { headers })).json()) as Job;
async function done(id: string, every = 500): Promise<Job> {
  for (;;) {
    const job = await getJob(id);
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job;
    await new Promise((res) => setTimeout(res, every));
  }
}

const created = await fetch(`${app.baseUrl}/graphql`, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({
    query:
      'mutation { createDataTable(input: { name: "Export bench", columns: [{ name: "N", key: "n", type: NUMBER }, { name: "Label", key: "label", type: TEXT }, { name: "Price", key: "price", type: NUMBER }, { name: "City", key: "city", type: TEXT }] }) { table { id } } }',
  }),
});
const tableId = ((await created.json()) as { data: { createDataTable: { table: { id: string } } } }).data.createDataTable.table.id;

// Fill the table: the CSV streamed as multipart to the import (a job).
{
  const started = Date.now();
  const { body } = await uploadMultipart(new URL(`${app.baseUrl}/datatables/${tableId}/rows/import`), headers, csvPath, {
    filename: 'rows.csv',
    contentType: 'text/csv',
  });
  const accepted = body as Job;
  const imported = await done(accepted.id, 2000);
  if (imported.result?.imported !== ROWS) throw new Error(`import ended ${JSON.stringify(imported).slice(0, 300)}`);
  console.log(`filled ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

global.gc?.();
await new Promise((r) => setTimeout(r, 2000));
const sampler = sampleMemory();
const started = Date.now();
const r = await fetch(`${app.baseUrl}/datatables/${tableId}/rows/export`, { headers });
if (r.status !== 202) throw new Error(`expected 202, got ${r.status}`);
const accepted = (await r.json()) as Job;
const acceptedMs = Date.now() - started;
const job = await done(accepted.id, 500);
const seconds = (Date.now() - started) / 1000;
const memory = sampler.stop();
if (job.state !== 'succeeded' || job.result?.rows !== ROWS) throw new Error(`export ended ${JSON.stringify(job).slice(0, 300)}`);

// The file through its signed link (no key), lines counted as they stream.
const file = await fetch(`${app.baseUrl}${job.result.download_url as string}`);
let lines = 0;
let bytes = 0;
for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
  bytes += chunk.length;
  for (const b of chunk) if (b === 10) lines++;
}
if (lines !== ROWS + 1) throw new Error(`the file has ${lines} lines`);
console.table([
  {
    rows: ROWS,
    fileMb: +(bytes / 1024 / 1024).toFixed(1),
    acceptedMs,
    seconds: +seconds.toFixed(1),
    rowsPerSecond: Math.round(ROWS / seconds),
    ...memory,
  },
]);
await app.close();
await rm(dir, { recursive: true, force: true });
await rm(files, { recursive: true, force: true });
