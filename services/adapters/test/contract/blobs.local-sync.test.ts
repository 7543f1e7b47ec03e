/**
 * The local blob store makes an upload durable before it commits it, and flushes a large upload as
 * it arrives rather than all at the end. The syncs are counted, as in stream.lmdb-sync.test.ts: an
 * LD_PRELOAD shim (fixtures/sync-log.c, compiled here with gcc) appends each fsync/fdatasync once it
 * returned to the file where the uploading child (fixtures/blob-sync.child.ts) writes `committed`
 * once put resolved (the rename that commits the upload is before that).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncShim } from '../sync-log.helpers.js';

const shim = syncShim('blobs.local-sync.test');
afterAll(() => shim.remove());

(shim.problem ? test.skip : test)(
  'a 40 MiB upload: data flushes while it arrives (from 16 MiB on, one at a time), then an fsync, then the commit',
  async () => {
    const log = join(shim.work, 'syncs.log');
    expect(await shim.run('blob-sync.child.ts', [join(shim.work, 'blobs'), '40'], log)).toBe(0);

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
    // The first flush starts at 16 MiB written; a second at 32 MiB only if the first has returned by
    // then (one at a time), which a busy machine decides: at least one.
    expect(flushes.length).toBeGreaterThanOrEqual(1);
    expect(events).toEqual([...flushes, 'fsync 0', 'committed']);
  },
  // Generous: a busy 2-core machine starts the child (node + tsx) slowly; the upload itself is ~40 MB.
  120_000,
);
