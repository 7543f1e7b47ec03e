/**
 * The embedded store classifies its engine's errors as the server adapter does: a memory limit
 * (the engine's own MEMORY_LIMIT_EXCEEDED, provoked with a tiny max_memory_usage) is transient, a
 * statement the engine refuses is not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@pylon/kit/errors';
import { isTransientError } from '@pylon/kit/ports/stream';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { createChdbAnalyticsStore } from '../../src/chdb/analytics.chdb.js';

/** One store for the file (chDB opens one data dir per process), removed with its dir at the end. */
const opened = (async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-chdb-errors-'));
  return { dir, store: await createChdbAnalyticsStore({ path: dir }) };
})();
afterAll(async () => {
  const { dir, store } = await opened;
  await store.close();
  await rm(dir, { recursive: true, force: true });
});
const run = async <T>(call: (store: AnalyticsStore) => Promise<T>) => call((await opened).store);

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as AppError,
  );

test('MEMORY_LIMIT_EXCEEDED (241) is UNAVAILABLE and transient', async () => {
  const e = await failure(run((store) => store.query('SELECT groupArray(number) FROM numbers(10000000) SETTINGS max_memory_usage = 1000000')));
  expect(e).toBeInstanceOf(AppError);
  expect(e?.details).toMatchObject({ engineCode: 241 });
  expect(e?.code).toBe('UNAVAILABLE');
  expect(isTransientError(e)).toBe(true);
});

test('a statement the engine refuses (unknown table, 60) is not transient', async () => {
  const e = await failure(run((store) => store.exec('INSERT INTO no_such_table SELECT 1')));
  expect(e?.details).toMatchObject({ engineCode: 60 });
  expect(isTransientError(e)).toBe(false);
});
