/**
 * Every acknowledgement of the durable embedded log follows a sync of its file. kill -9 cannot show
 * this (the page cache survives the process), so the syncs are counted instead: an LD_PRELOAD shim
 * (fixtures/sync-log.c, compiled here with gcc) records each fsync/fdatasync/msync/sync_file_range
 * once it returned, in the same append-only file where the producer (fixtures/stream-sync.child.ts)
 * writes `pub <n>` before each publish and `ack <n>` once it resolved. For every message a sync of
 * the log's data file must lie between its pub and its ack. Opening the log with `noSync` (or
 * resolving publish before `flushed`) makes this test fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncShim } from '../sync-log.helpers.js';

const shim = syncShim('stream.lmdb-sync.test');
afterAll(() => shim.remove());

(shim.problem ? test.skip : test)(
  'each publish of the lmdb log is acknowledged only after a sync of data.mdb that followed its start',
  async () => {
    const log = join(shim.work, 'events.log');
    const dir = join(shim.work, 'stream');
    const rounds = 40;
    const code = await shim.run('stream-sync.child.ts', [dir, String(rounds)], log);
    expect(code).toBe(0);

    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const data = join(dir, 'data.mdb');
    let syncs = 0; // syncs of data.mdb seen so far
    const syncsAtPub = new Map<number, number>();
    const unsynced: number[] = [];
    let acks = 0;
    for (const line of lines) {
      const [kind, a, b] = line.split(' ');
      if (kind === 'sync' && b === data) syncs++;
      else if (kind === 'pub') syncsAtPub.set(Number(a), syncs);
      else if (kind === 'ack') {
        acks++;
        if (syncs <= syncsAtPub.get(Number(a))!) unsynced.push(Number(a));
      }
    }
    expect(acks).toBe(rounds * 3);
    expect(unsynced).toEqual([]);
    // Three concurrent publishes share commits: fewer syncs than acknowledgements, but at least one per round.
    expect(syncs).toBeGreaterThanOrEqual(rounds);
  },
  120_000,
);
