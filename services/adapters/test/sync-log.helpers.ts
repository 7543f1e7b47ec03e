/**
 * The sync-order tests' shim (fixtures/sync-log.c): compiled with gcc into a temporary folder, and
 * a child started under it (node with tsx as a loader, so the shim is in the process that syncs),
 * which records each fsync/fdatasync/msync/sync_file_range once it returned in the file `log`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipNote } from '../../kit/test/contract/wait.helpers.js';

export interface SyncShim {
  /** Why the shim cannot be built here (its tests are skipped), or null. */
  problem: string | null;
  /** A folder of the test's own, removed with remove(). */
  work: string;
  /** Runs `fixture` (under test/fixtures) with `args` under the shim, recording into `log`; answers the exit code. */
  run(fixture: string, args: string[], log: string): Promise<number | null>;
  remove(): void;
}

export function syncShim(testName: string): SyncShim {
  const work = mkdtempSync(join(tmpdir(), 'pylon-sync-'));
  const shim = join(work, 'sync-log.so');
  const gcc = spawnSync('gcc', ['-shared', '-fPIC', '-O2', '-o', shim, new URL('fixtures/sync-log.c', import.meta.url).pathname, '-ldl'], {
    encoding: 'utf8',
  });
  const problem = gcc.error ? `gcc not available (${gcc.error.message})` : gcc.status !== 0 ? `gcc failed: ${gcc.stderr}` : null;
  if (problem) skipNote(`${testName}: ${problem}; the sync-order test is skipped`);
  return {
    problem,
    work,
    run(fixture, args, log) {
      const child = spawn(process.execPath, ['--import', 'tsx', new URL(`fixtures/${fixture}`, import.meta.url).pathname, ...args], {
        cwd: new URL('../../../', import.meta.url).pathname,
        env: { ...process.env, LD_PRELOAD: shim, PYLON_SYNC_LOG: log },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      return new Promise((resolve) => child.on('exit', (c) => resolve(c)));
    },
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}
