/** The ingest's compaction schedule: first run after `firstMs`, then every `everyMs`, never two at once; 0 = never; close waits for a run; the visitor counts on their own timer. */
import { createLogger } from '@pylon/kit';
import { startCompaction } from '../../src/workers/compaction.js';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `query` for the compaction's selects; the visitor count's clock read answered at once. */
const withClock =
  (query: () => Promise<unknown[]>) =>
  async <T>(sql: string): Promise<T[]> =>
    (sql.includes('now64') ? [{ v: '2026-01-01 00:00:00.000000' }] : await query()) as T[];

test('runs first after firstMs, skips ticks while a run is in flight, close waits for it', async () => {
  let runs = 0;
  let inFlight = 0;
  let most = 0;
  const analytics = {
    query: withClock(async () => {
      runs++;
      most = Math.max(most, ++inFlight);
      await sleep(120);
      inFlight--;
      return [];
    }),
    exec: async () => undefined,
  };
  const c = startCompaction({ analytics, logger, firstMs: 10, everyMs: 20 });
  await sleep(300);
  await c.close();
  expect(inFlight).toBe(0);
  expect(most).toBe(1);
  expect(runs).toBeGreaterThanOrEqual(1);
  expect(runs).toBeLessThanOrEqual(3); // 120 ms runs, 20 ms ticks: most ticks skipped
  const after = runs;
  await sleep(100);
  expect(runs).toBe(after);
});

test('everyMs 0 schedules nothing; a failing run is logged, not thrown', async () => {
  let runs = 0;
  const never = startCompaction({ analytics: { query: async () => (runs++, []), exec: async () => undefined }, logger, firstMs: 0, everyMs: 0 });
  await sleep(50);
  await never.close();
  expect(runs).toBe(0);
  const failing = startCompaction({
    analytics: { query: async () => Promise.reject(new Error('down')), exec: async () => undefined },
    logger,
    firstMs: 0,
    everyMs: 1000,
  });
  await sleep(50);
  await expect(failing.close()).resolves.toBeUndefined();
});

test('the finished days are counted on their own timer, beside a compaction in flight', async () => {
  let compactions = 0;
  let counts = 0;
  const analytics = {
    query: withClock(async () => {
      compactions++;
      await sleep(200); // a long compaction
      return [];
    }),
    exec: async (sql: string) => {
      if (sql.includes('audience_visitor_days')) counts++;
    },
  };
  const c = startCompaction({ analytics, logger, firstMs: 0, everyMs: 10_000, countEveryMs: 20 });
  await sleep(150);
  expect(compactions).toBe(1);
  expect(counts).toBeGreaterThanOrEqual(4); // two statements a run, several runs
  await c.close();
});
