/**
 * The local blob store makes an upload durable before it commits it, and flushes a large upload as
 * it arrives rather than all at the end. The syncs are counted, as in stream.lmdb-sync.test.ts: an
 * LD_PRELOAD shim (fixtures/sync-log.c, compiled here with gcc) appends each fsync/fdatasync once it
 * returned to the file where the uploading child (fixtures/blob-sync.child.ts) writes `committed`
 * once put resolved (the rename that commits the upload is before that).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipNote } from '../../../kit/test/contract/wait.helpers.js';

const work = mkdtempSync(join(tmpdir(), 'pylon-blob-sync-'));
const shim = join(work, 'sync-log.so');
const gcc = spawnSync('gcc', ['-shared', '-fPIC', '-O2', '-o', shim, new URL('../fixtures/sync-log.c', import.meta.url).pathname, '-ldl'], {
  encoding: 'utf8',
});
const problem = gcc.error ? `gcc not available (${gcc.error.message})` : gcc.status !== 0 ? `gcc failed: ${gcc.stderr}` : null;
if (problem) skipNote(`blobs.local-sync.test: ${problem}; the sync-order test is skipped`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

(problem ? test.skip : test)(
  'a 40 MiB upload: data flushes while it arrives (every 16 MiB), then an fsync, then the commit',
  async () => {
    const log = join(work, 'syncs.log');
    const root = new URL('../../../../', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('../fixtures/blob-sync.child.ts', import.meta.url).pathname, join(work, 'blobs'), '40'], {
      cwd: root,
      env: { ...process.env, LD_PRELOAD: shim, PYLON_SYNC_LOG: log },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    expect(await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))).toBe(0);

    // The upload's temporary data file's syncs, in the order they returned, then the commit.
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const events = lines.flatMap((l) => {
      if (l === 'committed') return ['committed'];
      const [, call, file, result] = l.split(' ');
      return file?.includes('/.tmp/upload.bin.') && file.endsWith('.data') ? [`${call} ${result}`] : [];
    });
    expect(events.at(-1)).toBe('committed');
    expect(events.at(-2)).toBe('fsync 0');
    const flushes = events.filter((e) => e === 'fdatasync 0');
    expect(flushes.length).toBeGreaterThanOrEqual(2); // 40 MiB: at 16 and 32 MiB written (one at a time)
    expect(events).toEqual([...flushes, 'fsync 0', 'committed']);
  },
  // Generous: a busy 2-core machine starts the child (node + tsx) slowly; the upload itself is ~40 MB.
  120_000,
);
