/**
 * Exports as jobs through the all-in-one server (issue 20): a data-table export over
 * EXPORT_JOB_THRESHOLD_ROWS, or asked with `Prefer: respond-async`, and a report export with
 * `Prefer: respond-async`, answer 202 + Location: /jobs/{id}; the job writes the file to the blob
 * store with progress; GET /jobs/{id} (and GraphQL job) then give a signed, expiring link that
 * downloads the file without an API key. The file is read back (CSV rows equal the table; the report
 * CSV has the digest of the streamed one; XLSX opened with exceljs). A tampered or expired signature
 * is 403; another account gets 404 on the job; a cancelled export leaves no file.
 */
import { createHash, createHmac } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import type { DeviceRepository } from '@pylon/devices';
import { startHarness, TEST_KEY, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';
import { jobFinished } from './support/jobs.js';

const SECRET = 'export-jobs-e2e-secret-0123456789abcdef';
const A = 'demo-account';
let h: Harness;
let keyB: string;
let device: { id: string; name: string };

type Json = Record<string, any>;
const call = async (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.key !== null) headers['x-service-apikey'] = init.key ?? TEST_KEY;
  const res = await fetch(`${h.baseUrl}${path}`, { ...init, headers });
  return res;
};
const json = async (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const res = await call(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
};

const finished = (id: string, ms?: number) => jobFinished(json, id, ms);

/** A table of `n` rows (n, label), imported synchronously; some labels are formulas. */
async function tableOf(n: number): Promise<string> {
  const r = await h.gql(
    'mutation { createDataTable(input: { name: "Export", columns: [{ name: "N", key: "n", type: NUMBER, required: true }, { name: "Label", key: "label", type: TEXT }] }) { table { id } } }',
  );
  const id = r.body.data!.createDataTable.table.id as string;
  const csv = `n,label\n${Array.from({ length: n }, (_, i) => `${i},${i % 100 === 7 ? '=1+1' : `row ${i}`}`).join('\n')}\n`;
  const form = new FormData();
  form.append('file', new Blob([csv]), 'rows.csv');
  const imported = await json(`/datatables/${id}/rows/import`, { method: 'POST', body: form });
  expect(imported.body).toMatchObject({ imported: n, failed: 0 });
  return id;
}

const jobFiles = async (jobId: string) => {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(dir, e.name));
      else if (e.name.includes(jobId)) out.push(e.name);
    }
  };
  await walk(h.dataDir);
  return out;
};

beforeAll(async () => {
  h = await startHarness({
    SIGNAGE_INTERNAL_SECRET: SECRET,
    IMPORT_JOB_THRESHOLD_BYTES: String(50 * 1024 * 1024),
    EXPORT_JOB_THRESHOLD_ROWS: '2000',
    JOBS_MAX_PER_ACCOUNT: '5',
    REPORT_JOB_THRESHOLD_ROWS: '100',
  });
  keyB = await otherAccountKey(h, 'export-jobs-other', 'o@other.example');
  const devices = (h.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
  const d = (await devices.all(A))[0]!;
  device = { id: d.id, name: d.name };
  const store = await createChdbAnalyticsStore({ path: join(h.dataDir, 'analytics') });
  await store.insert(
    'play_logs',
    Array.from({ length: 300 }, (_, i) => ({
      id: `ej${i}`,
      account_id: A,
      device_id: device.id,
      file_id: 'media-1',
      file_name: i === 3 ? '=cmd()' : 'promo.mp4',
      timestamp: new Date(Date.UTC(2024, 4, 1, 8) + i * 60_000).toISOString(),
      duration: 10 + (i % 7),
      type: 'video',
      playlist_id: 'pl',
      schedule_id: 'sc',
    })),
  );
  await store.close();
}, 120_000);
afterAll(() => h?.stop());

test('a table over EXPORT_JOB_THRESHOLD_ROWS exports as a job: 202, progress, a signed link that downloads the CSV without a key', async () => {
  const t = await tableOf(3000);
  const r = await json(`/datatables/${t}/rows/export`);
  expect(r.status).toBe(202);
  expect(r.headers.get('location')).toBe(`/jobs/${r.body.id}`);
  expect(r.body).toMatchObject({ kind: 'datatables.export', state: expect.stringMatching(/queued|running/), progress: { rows_total: 3000 } });
  const job = await finished(r.body.id);
  expect(job).toMatchObject({
    state: 'succeeded',
    progress: { rows_done: 3000, rows_total: 3000, rows_failed: 0 },
    result: { rows: 3000, file: { filename: `${t}.csv`, content_type: 'text/csv; charset=utf-8' }, download_url: expect.any(String) },
    links: { self: `/jobs/${job.id}`, result: job.result.download_url },
  });
  expect(job.result.download_url).toMatch(new RegExp(`^/jobs/${job.id}/result\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
  expect(JSON.stringify(job)).not.toContain(`job-${job.id}`); // the blob key stays inside

  const file = await call(job.result.download_url, { key: null });
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${t}.csv"`);
  const text = await file.text();
  expect(Number(file.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  expect(job.result.file.bytes).toBe(Buffer.byteLength(text));
  const lines = text.split('\r\n').filter(Boolean);
  expect(lines[0]).toBe('n,label');
  expect(lines.slice(1)).toEqual(Array.from({ length: 3000 }, (_, i) => `${i},${i % 100 === 7 ? "'=1+1" : `row ${i}`}`));

  // GraphQL job agrees and carries the same kind of link.
  const g = await h.gql(
    'query($id: ID!) { job(id: $id) { state kind progress { rowsDone rowsTotal } result resultLink { url expiresOn filename contentType bytes } } }',
    {
      variables: { id: job.id },
    },
  );
  expect(g.body.data!.job).toMatchObject({
    state: 'SUCCEEDED',
    kind: 'datatables.export',
    progress: { rowsDone: 3000, rowsTotal: 3000 },
    result: { rows: 3000, file: { filename: `${t}.csv`, bytes: Buffer.byteLength(text) } },
    resultLink: { url: job.result.download_url, filename: `${t}.csv`, contentType: 'text/csv; charset=utf-8', bytes: Buffer.byteLength(text) },
  });
  expect((await call(g.body.data!.job.resultLink.url, { key: null })).status).toBe(200);
}, 120_000);

test('small exports stay synchronous; Prefer: respond-async makes a job whose file equals the synchronous CSV', async () => {
  const t = await tableOf(150);
  const sync = await call(`/datatables/${t}/rows/export`);
  expect(sync.status).toBe(200);
  const direct = await sync.text();
  const r = await json(`/datatables/${t}/rows/export`, { headers: { prefer: 'respond-async' } });
  expect(r.status).toBe(202);
  expect(r.headers.get('preference-applied')).toBe('respond-async');
  const job = await finished(r.body.id);
  expect(await (await call(job.result.download_url, { key: null })).text()).toBe(direct);
}, 60_000);

test('the link is refused when tampered with (403) or expired (403), and the job is 404 for another account', async () => {
  const t = await tableOf(10);
  const job = await finished((await json(`/datatables/${t}/rows/export`, { headers: { prefer: 'respond-async' } })).body.id);
  const url = new URL(job.result.download_url, h.baseUrl);
  const sig = url.searchParams.get('signature')!;
  const expires = url.searchParams.get('expires')!;
  const tampered = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
  const refused = async (q: string) => json(`/jobs/${job.id}/result?${q}`, { key: null });
  expect((await refused(`expires=${expires}&signature=${tampered}`)).body).toMatchObject({ error: { code: 'FORBIDDEN', field: 'signature' } });
  expect((await refused(`expires=${expires}&signature=${tampered}`)).status).toBe(403);
  expect((await refused(`expires=${Number(expires) + 1}&signature=${sig}`)).status).toBe(403); // expiry moved: signature no longer matches
  expect((await refused('')).status).toBe(403);
  // A genuine signature over an expiry in the past (signed here with the server's secret) is refused as expired.
  const past = Math.floor(Date.now() / 1000) - 5;
  const pastSig = createHmac('sha256', SECRET).update(`job-result\n${job.id}\n${past}`).digest('base64url');
  const expired = await refused(`expires=${past}&signature=${pastSig}`);
  expect(expired.status).toBe(403);
  expect(expired.body.error).toMatchObject({ code: 'FORBIDDEN', field: 'expires' });
  expect(expired.body.error.message).toContain(`GET /jobs/${job.id}`);
  // Another job's signature does not open this one.
  const other = await finished((await json(`/datatables/${t}/rows/export`, { headers: { prefer: 'respond-async' } })).body.id);
  const otherUrl = new URL(other.result.download_url, h.baseUrl);
  expect((await refused(otherUrl.search.slice(1))).status).toBe(403);

  // Cross-account: the job does not exist for B (REST GET/DELETE, GraphQL), and B cannot export A's table.
  expect((await json(`/jobs/${job.id}`, { key: keyB })).status).toBe(404);
  expect((await json(`/jobs/${job.id}`, { method: 'DELETE', key: keyB })).status).toBe(404);
  const g = await h.gql('query($id: ID!) { job(id: $id) { id resultLink { url } } }', { variables: { id: job.id }, key: keyB });
  expect(g.body.data?.job ?? null).toBeNull();
  expect(g.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  expect((await json(`/datatables/${t}/rows/export`, { key: keyB, headers: { prefer: 'respond-async' } })).status).toBe(404);
  // Without a key the job itself is not readable (only its file, through the signed link).
  expect((await json(`/jobs/${job.id}`, { key: null })).status).toBe(401);
}, 60_000);

test('a running export cancels: the job ends cancelled and leaves no file', async () => {
  const t = await tableOf(40_000);
  let cancelled: Json | undefined;
  for (let attempt = 0; attempt < 3 && !cancelled; attempt++) {
    const r = await json(`/datatables/${t}/rows/export`);
    expect(r.status).toBe(202);
    for (;;) {
      const s = await json(`/jobs/${r.body.id}`);
      if (s.body.state === 'running') {
        expect((await json(`/jobs/${r.body.id}`, { method: 'DELETE' })).status).toBe(202);
        break;
      }
      if (s.body.state !== 'queued') break;
    }
    const job = await finished(r.body.id);
    if (job.state === 'cancelled') cancelled = job;
  }
  expect(cancelled).toMatchObject({ state: 'cancelled', result: null });
  expect(cancelled!.progress.rows_done).toBeLessThan(40_000);
  expect(await jobFiles(cancelled!.id)).toEqual([]);
}, 180_000);

const POP = { report_id: 'proof_of_play', start_date: '2024-05-01', end_date: '2024-05-01' };
const report = (body: unknown, init: { key?: string; prefer?: boolean } = {}) =>
  call('/report/export', {
    method: 'POST',
    key: init.key ?? TEST_KEY,
    headers: { 'content-type': 'application/json', ...(init.prefer === false ? {} : { prefer: 'respond-async' }) },
    body: JSON.stringify(body),
  });

test('a report export with Prefer: respond-async is a job: the CSV has the digest of the streamed one; over REPORT_JOB_THRESHOLD_ROWS a job unasked; XLSX and PDF too', async () => {
  // One hour of plays (under the threshold of 100): streamed at once.
  const HOUR = { ...POP, start_date: '2024-05-01T08:00:00Z', end_date: '2024-05-01T09:00:00Z' };
  const direct = await report(HOUR, { prefer: false });
  expect(direct.status).toBe(200);
  const streamed = await direct.text();
  const digest = /SHA-256 of rows,([0-9a-f]{64})/.exec(streamed)![1]!;
  const streamedRows = streamed.split('\r\n\r\n')[0]!.split('\r\n').slice(1);

  const r = await report(HOUR);
  expect(r.status).toBe(202);
  const accepted = (await r.json()) as Json;
  expect(r.headers.get('location')).toBe(`/jobs/${accepted.id}`);
  expect(accepted.kind).toBe('analytics.report-export');
  const job = await finished(accepted.id);
  expect(job).toMatchObject({
    state: 'succeeded',
    progress: { rows_done: streamedRows.length, rows_total: streamedRows.length },
    result: { rows: streamedRows.length, file: { filename: 'proof_of_play_2024-05-01_2024-05-01.csv', content_type: 'text/csv; charset=utf-8' } },
  });
  const file = await call(job.result.download_url, { key: null });
  expect(file.headers.get('content-disposition')).toBe(direct.headers.get('content-disposition'));
  const text = await file.text();
  expect(text).toContain(`SHA-256 of rows,${digest}\r\n`);
  const rows = text.split('\r\n\r\n')[0]!.split('\r\n').slice(1);
  expect(rows).toEqual(streamedRows);
  // The digest covers each play's fixed facts: play id, device id, file id, file name, start, duration, playlist, schedule.
  expect(
    createHash('sha256')
      .update(
        rows
          .map((l) => l.split(','))
          .map((f) => `${[f[10], f[1], f[3], f[4], f[0], f[5], f[6], f[8]].join(',')}\n`)
          .join(''),
      )
      .digest('hex'),
  ).toBe(digest);
  expect(rows[3]).toContain(",'=cmd(),");

  // The whole day holds 300 plays, over the threshold: a job without asking.
  const auto = await report(POP, { prefer: false });
  expect(auto.status).toBe(202);
  const day = await finished(((await auto.json()) as Json).id);
  expect(day).toMatchObject({ state: 'succeeded', kind: 'analytics.report-export', result: { rows: 300 } });
  const dayDigest = /SHA-256 of rows,([0-9a-f]{64})/.exec(await (await call(day.result.download_url, { key: null })).text())![1]!;

  const x = await finished(((await (await report({ ...POP, format: 'EXCEL' })).json()) as Json).id);
  expect(x.result.file).toMatchObject({ filename: 'proof_of_play_2024-05-01_2024-05-01.xlsx' });
  const xlsx = await call(x.result.download_url, { key: null });
  expect(xlsx.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as never);
  const sheet = wb.worksheets[0]!;
  expect(sheet.rowCount).toBe(301);
  expect(sheet.getRow(2).getCell(2).value).toBe(device.id);
  expect(sheet.getRow(5).getCell(5).value).toBe('=cmd()'); // stored as text, not a formula
  const summary = wb.worksheets.find((s) => s.name !== sheet.name)!;
  const cells: string[] = [];
  summary.eachRow((row) => row.eachCell((c) => cells.push(String(c.value))));
  expect(cells).toContain(dayDigest);

  const p = await finished(((await (await report({ ...POP, format: 'PDF' })).json()) as Json).id);
  const pdf = Buffer.from(await (await call(p.result.download_url, { key: null })).arrayBuffer());
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(pdf.length).toBe(p.result.file.bytes);
}, 120_000);

test('report export jobs: bad input is refused before the 202; another account gets 404 on the job and a tampered link 403', async () => {
  const bad = await report({ ...POP, report_id: 'nope' });
  expect(bad.status).toBe(400);
  const foreign = await report({ ...POP, device_id: [device.id] }, { key: keyB });
  expect(foreign.status).toBe(404);
  const job = await finished(((await (await report(POP)).json()) as Json).id);
  expect((await json(`/jobs/${job.id}`, { key: keyB })).status).toBe(404);
  const g = await h.gql('query($id: ID!) { job(id: $id) { state resultLink { url } } }', { variables: { id: job.id } });
  expect(g.body.data!.job).toEqual({ state: 'SUCCEEDED', resultLink: { url: job.result.download_url } });
  const tampered = job.result.download_url.replace(/signature=./, (m: string) => (m.endsWith('x') ? 'signature=y' : 'signature=x'));
  expect((await call(tampered, { key: null })).status).toBe(403);
}, 60_000);
