/**
 * `npm start` with a log file it cannot write (an unwritable data dir, a wrong LOG_FILE): one line
 * naming the file and the way to log to the console, exit 1; not an uncaught stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../../', import.meta.url).pathname;
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pylon-log-file-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a log file that cannot be opened ends the start with one line naming it and LOG_FILE=', () => {
  // Its directory is a regular file: it cannot be created, whoever runs the test (root included).
  writeFileSync(join(dir, 'not-a-dir'), '');
  const file = join(dir, 'not-a-dir', 'pylon.log');
  const r = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, join(ROOT, 'launcher/src/all-in-one.main.ts')],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SIGNAGE_DATA_DIR: join(dir, 'data'), LOG_FILE: file, PORT: '0', LEGACY_PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect([r.status, r.stderr]).toEqual([1, `cannot write the log file ${file}: EEXIST; LOG_FILE= logs to the console\n`]);
  expect(r.stdout).toBe('');
});
