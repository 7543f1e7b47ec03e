/**
 * Every acknowledgement of the durable embedded log follows a sync of its file. kill -9 cannot show
 * this (the page cache survives the process), so the syncs are counted instead: an LD_PRELOAD shim
 * (fixtures/sync-log.c, compiled here with gcc) records each fsync/fdatasync/msync/sync_file_range
 * once it returned, in the same append-only file where the producer (fixtures/stream-sync.child.ts)
 * writes `pub <n>` before each publish and `ack <n>` once it resolved. For every message a sync of
 * the log's data file must lie between its pub and its ack. Opening the log with `noSync` (or
 * resolving publish before `flushed`) makes this test fail.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipNote } from '../../../kit/test/contract/wait.helpers.js';

const work = mkdtempSync(join(tmpdir(), 'pylon-sync-'));
const shim = join(work, 'sync-log.so');
const gcc = spawnSync('gcc', ['-shared', '-fPIC', '-O2', '-o', shim, new URL('../fixtures/sync-log.c', import.meta.url).pathname, '-ldl'], {
  encoding: 'utf8',
});
const problem = gcc.error ? `gcc not available (${gcc.error.message})` : gcc.status !== 0 ? `gcc failed: ${gcc.stderr}` : null;
if (problem) skipNote(`stream.lmdb-sync.test: ${problem}; the sync-order test is skipped`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

(problem ? test.skip : test)(
  'each publish of the lmdb log is acknowledged only after a sync of data.mdb that followed its start',
  async () => {
    const log = join(work, 'events.log');
    const dir = join(work, 'stream');
    const rounds = 40;
    const root = new URL('../../../../', import.meta.url).pathname;
    // node itself runs the child (tsx as a loader), so the shim is in the process that writes the log.
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('../fixtures/stream-sync.child.ts', import.meta.url).pathname, dir, String(rounds)], {
      cwd: root,
      env: { ...process.env, LD_PRELOAD: shim, PYLON_SYNC_LOG: log },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // Generous: a busy 2-core machine starts the child slowly; the run itself is ~120 small commits.
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
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
