/**
 * Issue 20 (`pnpm --filter @pylon/bench exec tsx src/import-job.run.ts`): a 1,000,000-row CSV and
 * a 1,000,000-row .xlsx imported as jobs through POST /datatables/{id}/rows/import (202, then GET
 * /jobs/{id} until done), each file streamed from disk to the server. Prints rows/s and the peak
 * RSS above idle of this process (server in-process; the client only streams the file). The files
 * are generated first by a child process, so their writers do not count. BENCH_IMPORT_ROWS
 * changes the size, BENCH_IMPORT_KINDS=csv (or xlsx) runs one of the two.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import ExcelJS from 'exceljs';
import { BENCH_KEY as KEY, BENCH_PASSWORD, startBenchApp } from './bench-app.js';
import { sampleMemory, uploadMultipart } from './jobs.bench.js';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const cell = (i: number) => [i, `item ${i}`, (i % 997) / 10, ['Oslo', 'Lyon', 'Porto', 'Graz'][i % 4]!] as const;

async function generate(dir: string): Promise<void> {
  const csv = createWriteStream(join(dir, 'rows.csv'));
  csv.write('n,label,price,city\n');
  for (let i = 0; i < ROWS; i++) if (!csv.write(`${cell(i).join(',')}\n`)) await once(csv, 'drain');
  csv.end();
  await once(csv, 'finish');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: join(dir, 'rows.xlsx'), useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('rows');
  ws.addRow(['n', 'label', 'price', 'city']).commit();
  for (let i = 0; i < ROWS; i++) ws.addRow([...cell(i)]).commit();
  ws.commit();
  await wb.commit();
}

if (process.argv[2] === 'generate') {
  await generate(process.argv[3]!);
  process.exit(0);
}

const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-import-job-'));
const files = await mkdtemp(join(tmpdir(), 'pylon-bench-import-files-'));
const gen = spawnSync(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname, 'generate', files], { stdio: 'inherit' });
if (gen.status !== 0 || !existsSync(join(files, 'rows.xlsx'))) throw new Error('generating the files failed');

const app = await startBenchApp(dir, { SIGNAGE_DEMO_PASSWORD: BENCH_PASSWORD });
const headers = { 'x-service-apikey': KEY };

interface JobBody {
  id: string;
  state: string;
  result: { imported: number } | null;
}

async function gql(query: string): Promise<{ createDataTable: { table: { id: string } } }> {
  const r = await fetch(`${app.baseUrl}/graphql`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return ((await r.json()) as { data: { createDataTable: { table: { id: string } } } }).data;
}

/** POSTs the file as multipart/form-data, streamed from disk (content-length known). */
async function upload(path: string, tableId: string): Promise<{ status: number; body: JobBody }> {
  const r = await uploadMultipart(new URL(`${app.baseUrl}/datatables/${tableId}/rows/import`), headers, path, {
    filename: path.split('/').pop()!,
    contentType: 'application/octet-stream',
  });
  return { status: r.status, body: r.body as JobBody };
}

async function measure(kind: 'csv' | 'xlsx') {
  const t = await gql(
    'mutation { createDataTable(input: { name: "Import bench", columns: [{ name: "N", key: "n", type: NUMBER }, { name: "Label", key: "label", type: TEXT }, { name: "Price", key: "price", type: NUMBER }, { name: "City", key: "city", type: TEXT }] }) { table { id } } }',
  );
  const tableId = t.createDataTable.table.id;
  global.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const sampler = sampleMemory();
  const started = Date.now();
  const r = await upload(join(files, `rows.${kind}`), tableId);
  if (r.status !== 202) throw new Error(`expected 202, got ${r.status}: ${JSON.stringify(r.body)}`);
  const accepted = Date.now() - started;
  let job: JobBody;
  for (;;) {
    job = (await (await fetch(`${app.baseUrl}/jobs/${r.body.id}`, { headers })).json()) as JobBody;
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  const memory = sampler.stop();
  const seconds = (Date.now() - started) / 1000;
  if (job.state !== 'succeeded' || job.result?.imported !== ROWS) throw new Error(`job ended ${JSON.stringify(job).slice(0, 500)}`);
  const size = (await stat(join(files, `rows.${kind}`))).size;
  return {
    kind,
    fileMb: +(size / 1024 / 1024).toFixed(1),
    rows: ROWS,
    acceptedMs: accepted,
    seconds: +seconds.toFixed(1),
    rowsPerSecond: Math.round(ROWS / seconds),
    ...memory,
  };
}

// BENCH_IMPORT_KINDS=csv (or xlsx) measures one of them.
const kinds = (process.env.BENCH_IMPORT_KINDS ?? 'csv,xlsx').split(',') as Array<'csv' | 'xlsx'>;
const results = [];
for (const kind of kinds) results.push(await measure(kind));
console.table(results);
await app.close();
await rm(dir, { recursive: true, force: true });
await rm(files, { recursive: true, force: true });
