/**
 * A job's file (kit job-files.ts) over the embedded stores: written streamed to the local blob store,
 * a signed link that opens it until it expires (tamper, expiry, another job's signature refused), no
 * file left by a producer that fails or a job that is cancelled, the sweep after the retention, and
 * jobs readable with the policies stored at submit by a process that does not run their kind.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import type { Writable } from 'node:stream';
import { createLmdbDocumentStore } from '../../src/lmdb/documents.lmdb.js';
import { createLocalBlobStore } from '../../src/local/blobs.local.js';
import { JobCancelled, JobFiles, JobRunner, restJob, type BlobStore, type DocumentStore, type Job, type JobContext } from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';

let dir: string;
let store: DocumentStore;
let blobs: BlobStore;
let clock: number;
const now = () => clock;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-job-files-'));
  store = await createLmdbDocumentStore({ path: join(dir, 'db') });
  blobs = createLocalBlobStore({ dir: join(dir, 'blobs') });
  clock = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  await store.close();
  await blobs.close();
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'job-files-test-secret-0123456789abcdef';
const settings = { retentionSeconds: 3600, linkSeconds: 600 };
const lines = (n: number) => async (out: Writable) => {
  for (let i = 0; i < n; i++) if (!out.write(`line ${i}\n`)) await new Promise((r) => out.once('drain', r));
};
const sizeOf = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}\n`.length).reduce((a, b) => a + b, 0);
const files = () => new JobFiles(blobs, store, SECRET, settings, undefined, now);
const job = (id: string, tenant: string, result: Record<string, unknown> | null, state: Job['state'] = 'succeeded'): Job =>
  ({ id, accountId: tenant, state, result }) as unknown as Job;
const leftovers = async () => {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if (!e.name.endsWith('.json')) out.push(e.name);
    }
  };
  await walk(join(dir, 'blobs'));
  return out;
};

test('a file is written streamed and opened through its signed link until the link expires', async () => {
  const f = files();
  const file = await f.write('acc-a', 'j1', { filename: 'out.csv', contentType: 'text/csv', ext: 'csv' }, lines(50_000));
  expect(file).toMatchObject({ key: 'job-j1.csv', filename: 'out.csv', contentType: 'text/csv', bytes: sizeOf(50_000) });
  const link = f.link(job('j1', 'acc-a', { file }))!;
  expect(link.url).toMatch(/^\/jobs\/j1\/result\?expires=\d+&signature=[\w-]+$/);
  const q = new URL(link.url, 'http://x').searchParams;
  expect(f.check('j1', q.get('expires'), q.get('signature'))).toBe('ok');
  expect(f.check('j2', q.get('expires'), q.get('signature'))).toBe('invalid');
  expect(f.check('j1', String(Number(q.get('expires')) + 1), q.get('signature'))).toBe('invalid');
  expect(f.check('j1', q.get('expires'), `${q.get('signature')!.slice(1)}A`)).toBe('invalid');
  expect(f.check('j1', undefined, q.get('signature'))).toBe('invalid');
  const opened = (await f.open('j1'))!;
  expect(opened.size).toBe(sizeOf(50_000));
  expect((await text(opened.body)).split('\n')[49_999]).toBe('line 49999');
  // The link lasts between linkSeconds/2 and linkSeconds; after that the same link is expired.
  expect(Date.parse(link.expiresAt) - clock).toBeGreaterThanOrEqual(300_000);
  expect(Date.parse(link.expiresAt) - clock).toBeLessThanOrEqual(600_000);
  clock += 601_000;
  expect(f.check('j1', q.get('expires'), q.get('signature'))).toBe('expired');
  // A new read signs a new link (the file is still kept).
  expect(f.link(job('j1', 'acc-a', { file }))!.url).not.toBe(link.url);
  // No link before success or without a file.
  expect(f.link(job('j1', 'acc-a', { file }, 'running'))).toBeNull();
  expect(f.link(job('j3', 'acc-a', { imported: 3 }))).toBeNull();
});

test('the REST view hides the blob key and adds the link; links never pass the retention', async () => {
  const f = files();
  const file = await f.write('acc-a', 'j1', { filename: 'out.csv', contentType: 'text/csv', ext: 'csv' }, lines(3));
  const view = restJob({ ...job('j1', 'acc-a', { rows: 3, file }), kind: 'k', progress: { rowsDone: 3, rowsTotal: 3, rowsFailed: 0 }, errors: [] } as Job, f);
  expect(JSON.stringify(view)).not.toContain('job-j1');
  expect(view).toMatchObject({
    result: { rows: 3, file: { filename: 'out.csv', content_type: 'text/csv', bytes: sizeOf(3) }, download_url: expect.stringMatching(/^\/jobs\/j1\/result/) },
    links: { self: '/jobs/j1', result: expect.stringMatching(/^\/jobs\/j1\/result/) },
  });
  clock += 3_500_000; // 100 s of retention left: the link ends with the file
  expect(Date.parse(f.link(job('j1', 'acc-a', { file }))!.expiresAt)).toBe(Date.parse(file.expiresAt) - (Date.parse(file.expiresAt) % 1000));
  clock += 100_000;
  expect(f.link(job('j1', 'acc-a', { file }))).toBeNull();
});

test('the sweep removes files past their retention, and only those', async () => {
  const f = files();
  await f.write('acc-a', 'old', { filename: 'a.csv', contentType: 'text/csv', ext: 'csv' }, lines(10));
  clock += 1800_000;
  await f.write('acc-b', 'new', { filename: 'b.csv', contentType: 'text/csv', ext: 'csv' }, lines(10));
  clock += 1800_000;
  expect(await f.sweep()).toBe(1);
  expect(await f.open('old')).toBeNull();
  expect(await blobs.get('acc-a', 'job-old.csv')).toBeNull();
  expect(await f.open('new')).not.toBeNull();
  clock += 1800_000;
  expect(await f.sweep()).toBe(1);
  expect(await leftovers()).toEqual([]);
});

test('a producer that fails leaves no file, not even a partial one', async () => {
  const f = files();
  await expect(
    f.write('acc-a', 'bad', { filename: 'a.csv', contentType: 'text/csv', ext: 'csv' }, async (out) => {
      await lines(20_000)(out);
      throw new Error('the store went away');
    }),
  ).rejects.toThrow('the store went away');
  expect(await f.open('bad')).toBeNull();
  expect(await leftovers()).toEqual([]);
});

test('a running export job that is cancelled ends cancelled with no file; reading uses the policies stored at submit', async () => {
  const f = files();
  const runner = new JobRunner(store, { maxPerAccount: 2, workers: 1 }, undefined, f);
  const gate = { open: false };
  runner.register(
    'export',
    async (ctx: JobContext) => {
      const file = await f.write(ctx.job.accountId, ctx.job.id, { filename: 'x.csv', contentType: 'text/csv', ext: 'csv' }, async (out) => {
        for (let i = 0; ; i++) {
          out.write(`row ${i}\n`);
          if (i % 100 === 0) {
            while (!gate.open) await new Promise((r) => setTimeout(r, 5));
            await ctx.report({ progress: { rowsDone: i } });
          }
        }
      });
      return { file };
    },
    { view: 'Analytics_View', edit: 'Analytics_View', cleanup: (j) => (j.state === 'succeeded' ? Promise.resolve() : f.discard(j.accountId, j.id)) },
  );
  const submitted = await runner.submit('acc-a', 'u1', 'export', {});
  expect(submitted.access).toEqual({ view: 'Analytics_View', edit: 'Analytics_View' });
  for (let i = 0; i < 200 && (await runner.get('acc-a', submitted.id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 5));
  // Another process (no handler for 'export') reads it with the stored policy.
  const other = new JobRunner(store);
  const viewer = testPrincipal('acc-a', ['Analytics_View']);
  expect((await other.read(viewer, submitted.id)).kind).toBe('export');
  await expect(other.read(testPrincipal('acc-a', ['DataTables_View']), submitted.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  await expect(other.read({ ...viewer, accountId: 'acc-b' }, submitted.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await runner.cancel('acc-a', submitted.id);
  gate.open = true;
  for (let i = 0; i < 400 && (await runner.get('acc-a', submitted.id)).state === 'running'; i++) await new Promise((r) => setTimeout(r, 5));
  expect((await runner.get('acc-a', submitted.id)).state).toBe('cancelled');
  expect(await leftovers()).toEqual([]);
  expect(await f.open(submitted.id)).toBeNull();
  expect(new JobCancelled()).toBeInstanceOf(Error);
  await runner.close();
});
