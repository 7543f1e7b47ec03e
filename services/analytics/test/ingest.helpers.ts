/**
 * Helpers shared by the ingest and rollup tests: a migrated chDB store per test file, waiting for a
 * condition, a store whose calls a test can intercept, rounding answers for comparison, and the raw-versus-rollup comparison of the
 * analytics queries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsStore } from '@pylon/kit';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { bucketsOf, type Interval } from '../src/domain/buckets.js';
import { GRAIN_MS, grainsOf, planSource, ROLLUPS, type Grain, type Source } from '../src/domain/rollup-plan.js';
import type { SeriesQuery } from '../src/domain/analytics-query.js';
import type { DateRange } from '../src/domain/date-range.js';
import { selectAudienceMetrics } from '../src/features/audience/audience.queries.js';
import { selectDeviceMetrics } from '../src/features/device-metrics/device-metrics.queries.js';
import { selectEventMetrics } from '../src/features/events/event.queries.js';
import { selectPlayStatsByTime } from '../src/features/play-stats/play-stats.queries.js';

/**
 * A migrated embedded chDB store in a fresh temporary directory for the test file: opened before
 * its tests (handed to `use` with the directory, where a test may keep its other files), closed and
 * removed after them.
 */
export function withChdbStore(prefix: string, use: (store: AnalyticsStore, dir: string) => void): void {
  let dir: string | undefined;
  let store: AnalyticsStore | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    store = await createChdbAnalyticsStore({ path: join(dir, 'analytics') });
    await store.migrate();
    use(store, dir);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
}

export async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `store` with some calls replaced (the others go to it). */
export function intercepted(store: AnalyticsStore, over: Partial<AnalyticsStore>): AnalyticsStore {
  return {
    migrate: () => store.migrate(),
    insert: (table, rows, options) => store.insert(table, rows, options),
    query: (sql, params) => store.query(sql, params),
    queryStream: (sql, params, o) => store.queryStream(sql, params, o),
    exec: (sql, params) => store.exec(sql, params),
    ping: () => store.ping(),
    close: () => store.close(),
    ...over,
  };
}

/** Numbers to 6 decimals, deeply (float sums come back in another order from a rollup). */
export const round = (v: unknown): unknown =>
  typeof v === 'number'
    ? Math.round(v * 1e6) / 1e6
    : Array.isArray(v)
      ? v.map(round)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round(x)]))
        : v;

/** The rollup grains the planner allows for `q` (finest first up to the best one). */
export function allowedGrains(q: Pick<SeriesQuery, 'range' | 'buckets'>, grains: readonly Grain[]): Source[] {
  const best = planSource(q.range, q.buckets, grains);
  return best === 'RAW' ? [] : grains.filter((g) => GRAIN_MS[g] <= GRAIN_MS[best as Grain]);
}

/**
 * A series query over every device, file and event of `accountId` in `range`, bucketed by
 * `interval` in `timeZone` (UTC unless given); `extra` narrows it (device, file ids, limit).
 */
export function seriesQuery(
  accountId: string,
  range: DateRange,
  interval: Interval,
  extra: Partial<Omit<SeriesQuery, 'accountId' | 'range' | 'interval' | 'buckets'>> = {},
): SeriesQuery {
  const timeZone = extra.timeZone ?? 'UTC';
  return {
    deviceIds: [],
    fileIds: [],
    eventNames: [],
    limit: 10_000,
    ...extra,
    accountId,
    range,
    interval,
    timeZone,
    buckets: bucketsOf(range, interval, timeZone),
  };
}

/**
 * The play, device, event and audience queries answer the same from the raw tables and from every
 * rollup grain the planner allows, over one UTC day by hour and by day. Answers how many audience
 * comparisons were made.
 */
export async function expectQueriesAgree(store: AnalyticsStore, accountId: string, day: number): Promise<number> {
  let compared = 0;
  for (const interval of ['HOUR', 'DAY'] as Interval[]) {
    const range = { from: new Date(day), to: new Date(day + 86_400_000) };
    const q = seriesQuery(accountId, range, interval);
    const plays = round(await selectPlayStatsByTime(store, q, true, 'RAW'));
    for (const g of allowedGrains(q, grainsOf(ROLLUPS.plays))) expect([g, round(await selectPlayStatsByTime(store, q, true, g))]).toEqual([g, plays]);
    const pings = round(await selectDeviceMetrics(store, q, 'RAW'));
    for (const g of allowedGrains(q, grainsOf(ROLLUPS.pings))) expect([g, round(await selectDeviceMetrics(store, q, g))]).toEqual([g, pings]);
    const events = round(await selectEventMetrics(store, q, true, 'RAW'));
    for (const g of allowedGrains(q, grainsOf(ROLLUPS.events))) expect([g, round(await selectEventMetrics(store, q, true, g))]).toEqual([g, events]);
    const audience = round(await selectAudienceMetrics(store, q, true, 'RAW'));
    for (const g of allowedGrains(q, grainsOf(ROLLUPS.audience))) {
      compared++;
      expect([g, round(await selectAudienceMetrics(store, q, true, g))]).toEqual([g, audience]);
    }
  }
  return compared;
}
