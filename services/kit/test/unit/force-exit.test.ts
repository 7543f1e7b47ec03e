/**
 * A forced shutdown must end the process even with a write transaction of the embedded store in
 * flight: process.exit() then waits for ever (lmdb-js #336), forceExit does not.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHILD = new URL('../fixtures/exit-in-transaction.child.ts', import.meta.url).pathname;
/** Start (tsx compiles the child) and end on a busy 2-core machine: generous. */
const LIMIT_MS = 60_000;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-force-exit-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Runs the child; resolves with how it ended, or 'still running' once it printed ready and `hangMs` passed. */
function run(how: 'exit' | 'force', hangMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string } | 'still running'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, join(dir, 'db'), how], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not start within ${LIMIT_MS} ms: ${stderr}`));
    }, LIMIT_MS);
    let hung: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      if (!d.toString().includes('ready') || hung) return;
      clearTimeout(limit);
      hung = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running');
      }, hangMs);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      clearTimeout(hung);
      resolve({ code, signal, stderr });
    });
  });
}

test(
  'forceExit ends the process from inside a write transaction, after writing its reason',
  async () => {
    const r = await run('force', LIMIT_MS);
    expect(r).not.toBe('still running');
    expect(r).toMatchObject({ signal: 'SIGKILL' });
    expect(r !== 'still running' && r.stderr).toContain('forced exit inside a write transaction');
  },
  3 * LIMIT_MS,
);

// Why forceExit exists: the same exit through process.exit() does not end within 10 s (it never does).
test(
  'process.exit() inside a write transaction hangs (the reason for forceExit)',
  async () => {
    expect(await run('exit', 10_000)).toBe('still running');
  },
  3 * LIMIT_MS,
);
