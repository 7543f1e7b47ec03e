/**
 * Imports as jobs through the all-in-one server (issue 20): over IMPORT_JOB_THRESHOLD_BYTES the
 * import answers 202 and runs in the background (GET /jobs/{id}, GraphQL job), small ones stay
 * synchronous; another account sees nothing; a job cancels; a job cut by a restart finishes in the
 * next process with every line imported exactly once. CSV and .xlsx.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { loadConfig } from '@pylon/kit';
import { startAllInOne, type AllInOne } from '../../launcher/src/all-in-one.js';
import { allInOneEnv } from '../../launcher/src/all-in-one.config.js';
import { TEST_KEY } from './harness.js';
import { otherAccountKey } from './other-account.js';
import { jobFinished } from './support/jobs.js';
import { registerRestOrigin } from './support/reference-conformance.js';

let dir: string;
let app: AllInOne;
let keyB: string;

async function start(): Promise<AllInOne> {
  const a = await startAllInOne(
    loadConfig(allInOneEnv, {
      SIGNAGE_DATA_DIR: dir,
      PORT: '0',
      LEGACY_PORT: '0',
      LOG_LEVEL: 'silent',
      SIGNAGE_BOOTSTRAP_API_KEY: TEST_KEY,
      SIGNAGE_SIMULATOR: 'false',
      IMPORT_JOB_THRESHOLD_BYTES: '1000',
    }),
  );
  registerRestOrigin(a.baseUrl);
  return a;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-jobs-e2e-'));
  app = await start();
  keyB = await otherAccountKey(app, 'jobs-e2e-other', 'o@other.example');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, any>;
const call = async (path: string, init: RequestInit & { key?: string } = {}) => {
  const res = await fetch(`${app.baseUrl}${path}`, { ...init, headers: { 'x-service-apikey': init.key ?? TEST_KEY, ...(init.headers as object) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
};
const gql = async (query: string, variables: Json = {}, key = TEST_KEY) =>
  (await call('/graphql', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).body;

async function newTable(): Promise<string> {
  const r = await gql(
    'mutation { createDataTable(input: { name: "Jobs", columns: [{ name: "N", key: "n", type: NUMBER, required: true }, { name: "Label", key: "label", type: TEXT }] }) { table { id } } }',
  );
  return r.data.createDataTable.table.id;
}
function upload(tableId: string, bytes: Buffer | string, name: string, key = TEST_KEY) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  return call(`/datatables/${tableId}/rows/import`, { method: 'POST', body: form, key });
}
const finished = (id: string, ms?: number) => jobFinished(call, id, ms);
const csvOf = (n: number, bad: number[] = []) =>
  `n,label\n${Array.from({ length: n }, (_, i) => (bad.includes(i) ? `x${i},bad` : `${i},row ${i}`)).join('\n')}\n`;
async function values(tableId: string): Promise<number[]> {
  const res = await fetch(`${app.baseUrl}/datatables/${tableId}/rows/export`, { headers: { 'x-service-apikey': TEST_KEY } });
  return (await res.text())
    .split('\r\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => Number(l.split(',')[0]));
}

test('a CSV over the threshold is a job: 202, progress, row errors, result; GraphQL job agrees; small files stay synchronous', async () => {
  const t = await newTable();
  const r = await upload(t, csvOf(300, [5, 250]), 'rows.csv');
  expect(r.status).toBe(202);
  expect(r.headers.get('location')).toBe(`/jobs/${r.body.id}`);
  expect(r.body).toMatchObject({ kind: 'datatables.import', state: expect.stringMatching(/queued|running/), links: { self: `/jobs/${r.body.id}` } });
  const job = await finished(r.body.id);
  expect(job).toMatchObject({
    state: 'succeeded',
    progress: { rows_done: 300, rows_total: 300, rows_failed: 2 },
    result: { imported: 298, failed: 2 },
    errors: [
      { line: 7, error: 'data.n must be a number', field: 'data.n' },
      { line: 252, error: 'data.n must be a number', field: 'data.n' },
    ],
    error: null,
  });
  const g = await gql('query($id: ID!) { job(id: $id) { id kind state progress { rowsDone rowsTotal rowsFailed } errors { line } result link } }', {
    id: job.id,
  });
  expect(g.data.job).toEqual({
    id: job.id,
    kind: 'datatables.import',
    state: 'SUCCEEDED',
    progress: { rowsDone: 300, rowsTotal: 300, rowsFailed: 2 },
    errors: [{ line: 7 }, { line: 252 }],
    result: { imported: 298, failed: 2 },
    link: `/jobs/${job.id}`,
  });
  expect((await values(t)).length).toBe(298);
  const small = await upload(t, 'n\n1\n2\n', 'small.csv');
  expect(small.status).toBe(200);
  expect(small.body).toEqual({ imported: 2, failed: 0, errors: [] });
});

test('another account can neither read nor cancel a job; an unknown id is the same 404', async () => {
  const t = await newTable();
  const r = await upload(t, csvOf(300), 'rows.csv');
  expect(r.status).toBe(202);
  expect((await call(`/jobs/${r.body.id}`, { key: keyB })).status).toBe(404);
  expect((await call(`/jobs/${r.body.id}`, { method: 'DELETE', key: keyB })).status).toBe(404);
  expect((await call('/jobs/no-such-job')).status).toBe(404);
  const g = await gql('query($id: ID!) { job(id: $id) { id } }', { id: r.body.id }, keyB);
  expect(g.data.job).toBeNull();
  expect(g.errors[0].extensions.code).toBe('NOT_FOUND');
  const c = await gql('mutation($id: ID!) { cancelJob(id: $id) { success errorCode } }', { id: r.body.id }, keyB);
  expect(c.data.cancelJob).toEqual({ success: false, errorCode: 'NOT_FOUND' });
  // B's own upload into A's table is refused before its body is read.
  expect((await upload(t, csvOf(100), 'rows.csv', keyB)).status).toBe(404);
  expect((await finished(r.body.id)).state).toBe('succeeded');
});

test('a running job cancels: it stops after its current chunk, keeping what it imported', async () => {
  const t = await newTable();
  const r = await upload(t, csvOf(60_000), 'big.csv');
  expect(r.status).toBe(202);
  for (;;) {
    const j = await call(`/jobs/${r.body.id}`);
    if (j.body.progress.rows_done > 0) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  const c = await call(`/jobs/${r.body.id}`, { method: 'DELETE' });
  expect(c.status).toBe(202);
  const job = await finished(r.body.id);
  expect(job.state).toBe('cancelled');
  expect(job.progress.rows_done).toBeLessThan(60_000);
  expect((await values(t)).length).toBe(job.progress.rows_done);
}, 120_000);

test('a job cut by a restart finishes in the next process: every line imported exactly once', async () => {
  const t = await newTable();
  const n = 40_000;
  const r = await upload(t, csvOf(n), 'restart.csv');
  expect(r.status).toBe(202);
  for (;;) {
    const j = await call(`/jobs/${r.body.id}`);
    if (j.body.progress.rows_done >= 3000) break;
    if (j.body.state === 'succeeded') throw new Error('the job finished before the restart; make it larger');
    await new Promise((res) => setTimeout(res, 20));
  }
  await app.close();
  app = await start();
  const job = await finished(r.body.id);
  expect(job).toMatchObject({ state: 'succeeded', progress: { rows_done: n, rows_failed: 0 }, result: { imported: n, failed: 0 } });
  const got = (await values(t)).sort((a, b) => a - b);
  expect(got.length).toBe(n);
  expect(got.every((v, i) => v === i)).toBe(true);
}, 180_000);

test('an .xlsx over the threshold is a job too, its total read from the sheet dimension', async () => {
  const t = await newTable();
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('rows');
  ws.addRow(['n', 'label']);
  for (let i = 0; i < 500; i++) ws.addRow([i, `row ${i}`]);
  const bytes = Buffer.from(await wb.xlsx.writeBuffer());
  const r = await upload(t, bytes, 'rows.xlsx');
  expect(r.status).toBe(202);
  // An archive the pre-scan refuses is a 400 at once, never a 202.
  const junk = await upload(t, Buffer.alloc(5000, 7), 'junk.xlsx');
  expect(junk.status).toBe(400);
  expect(junk.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
  expect(await finished(r.body.id)).toMatchObject({ state: 'succeeded', progress: { rows_done: 500, rows_total: 500 }, result: { imported: 500 } });
});
