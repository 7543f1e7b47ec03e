/**
 * The distinct counts the rollups keep as plain values (006_distinct_rollups.sql): uptime minutes
 * as per-hour minute masks (and per day, one mask per hour: 009_day_rollups.sql), unique visitors
 * as visitor rows and, for finished days, as counts per device and day (009, workers/visitor-days.ts).
 * Known answers from the rollups, equal to the raw answers; filled by the migration's backfill from
 * rows written before it; unchanged by a replayed batch (a duplicate counts once) and by a re-run of
 * the backfill or of the count; a late impression into a counted day is answered at once and
 * counted again by the next run.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsStore } from '@pylon/kit';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { DEFAULT_ANALYTICS_MIGRATIONS_DIR } from '@pylon/adapters/analytics';
import type { Interval } from '../src/domain/buckets.js';
import type { SeriesQuery } from '../src/domain/analytics-query.js';
import type { Source } from '../src/domain/rollup-plan.js';
import { selectAudienceMetrics } from '../src/features/audience/audience.queries.js';
import { selectDeviceMetrics } from '../src/features/device-metrics/device-metrics.queries.js';
import { countVisitorDays, markLateVisitorDays } from '../src/workers/visitor-days.js';
import { intercepted, seriesQuery } from './ingest.helpers.js';

let dir: string;
let migrations: string;
let store: AnalyticsStore;
const DISTINCT = '006_distinct_rollups.sql';

let n = 0;
const ping = (device: string, timestamp: string, id = `g${++n}`) => ({
  id,
  account_id: 'acc',
  device_id: device,
  timestamp,
  cpu_usage: 10,
  memory_usage: 20,
  disk_usage: 5,
  player_version: '',
  ip_address: '',
  external_ip_address: '',
});
const imp = (device: string, file: string, timestamp: string, visitor: string, id = `i${++n}`) => ({
  id,
  account_id: 'acc',
  device_id: device,
  file_id: file,
  timestamp,
  sensor: 'cam',
  dwell_time: 3,
  gender: 'f',
  age_range: '25-34',
  visitor_id: visitor,
  latitude: null,
  longitude: null,
});

// Day 1 (2026-03-02): d1 pings in minutes 10:00 (twice), 10:59 (last second), 11:30 and 23:00; d2 in 10:00.
// Day 2: d1 at 00:00:00.000 (minute 0 of the hour) and 03:59:30 (the last bit of the day grain's first mask).
const PINGS = [
  ping('d1', '2026-03-02T10:00:05Z'),
  ping('d1', '2026-03-02T10:00:40Z'),
  ping('d1', '2026-03-02T10:59:59.999Z'),
  ping('d1', '2026-03-02T11:30:00Z'),
  ping('d1', '2026-03-02T23:00:00Z'),
  ping('d2', '2026-03-02T10:00:00Z'),
  ping('d1', '2026-03-03T00:00:00Z'),
  ping('d1', '2026-03-03T03:59:30Z'),
];
// Day 1: d1 sees v1 (file f1 at 10:00 and f2 at 12:00), v2 (f2), and an anonymous detection; day 2: v1 (f1).
const IMPRESSIONS = [
  imp('d1', 'f1', '2026-03-02T10:00:00Z', 'v1'),
  imp('d1', 'f2', '2026-03-02T12:00:00Z', 'v1'),
  imp('d1', 'f2', '2026-03-02T12:10:00Z', 'v2'),
  imp('d1', 'f1', '2026-03-02T13:00:00Z', ''),
  imp('d1', 'f1', '2026-03-03T09:00:00Z', 'v1'),
];

function query(interval: Interval, extra: Parameters<typeof seriesQuery>[3] = {}): SeriesQuery {
  const range = { from: new Date('2026-03-02T00:00:00Z'), to: new Date('2026-03-04T00:00:00Z') };
  return seriesQuery('acc', range, interval, extra);
}

const uptime = async (q: SeriesQuery, source: Source) =>
  (await selectDeviceMetrics(store, q, source)).map((m) => `${m.deviceId} ${m.periodStart} ${Math.round(m.uptimePercentage * 1e6) / 1e6}`);
const visitors = async (q: SeriesQuery, source: Source, dayCounts = true) =>
  (await selectAudienceMetrics(store, q, true, source, { dayCounts })).map((m) => `${m.deviceId} ${m.periodStart} ${m.uniqueVisitors}`);
/** The valid day counts stored (latest version of each device and day). */
const counted = async () =>
  (
    await store.query<{ d: string; p: string; v: number }>(
      `SELECT device_id AS d, toString(period) AS p, argMax(visitors, version) AS v FROM audience_visitor_days
GROUP BY device_id, period HAVING argMax(valid, version) = 1 ORDER BY d, p`,
    )
  ).map((r) => `${r.d} ${r.p} ${r.v}`);
/** After both days of the data (2026-03-02 and 03) are over. */
const AFTER = new Date('2026-03-05T00:00:00Z');

// 1440 minutes a day: 4 pinged minutes = 0.277778 %, 2 = 0.138889 %, 1 = 0.069444 %.
const UPTIME_DAYS = ['d1 2026-03-02T00:00:00Z 0.277778', 'd1 2026-03-03T00:00:00Z 0.138889', 'd2 2026-03-02T00:00:00Z 0.069444', 'd2 2026-03-03T00:00:00Z 0'];
const VISITOR_DAYS = ['d1 2026-03-02T00:00:00Z 2', 'd1 2026-03-03T00:00:00Z 1'];

async function expectKnownAnswers(): Promise<void> {
  const day = query('DAY');
  expect(await uptime(day, 'DAY')).toEqual(UPTIME_DAYS);
  expect(await uptime(day, 'HOUR')).toEqual(UPTIME_DAYS);
  expect(await uptime(day, 'RAW')).toEqual(UPTIME_DAYS);
  // Weeks and months from the day grain: the days' masks summed.
  expect(await uptime(query('MONTH'), 'DAY')).toEqual(await uptime(query('MONTH'), 'RAW'));
  // Hour 10:00 of d1: minutes 0 and 59 (both ends of the mask) = 2 of 60.
  const hours = (await uptime(query('HOUR'), 'HOUR')).filter((l) => l.startsWith('d1 2026-03-02T10') || l.startsWith('d1 2026-03-03T00'));
  expect(hours).toEqual(['d1 2026-03-02T10:00:00Z 3.333333', 'd1 2026-03-03T00:00:00Z 1.666667']);
  expect(await visitors(day, 'DAY', false)).toEqual(VISITOR_DAYS);
  for (const g of ['DAY', 'HOUR', 'RAW'] as const) {
    expect([g, await visitors(day, g)]).toEqual([g, VISITOR_DAYS]);
    // A file filter counts the visitors seen on that file only.
    expect([g, await visitors(query('DAY', { fileIds: ['f2'] }), g)]).toEqual([g, ['d1 2026-03-02T00:00:00Z 2', 'd1 2026-03-03T00:00:00Z 0']]);
    // Over both days v1 is one visitor: the periods' visitor sets are merged, not summed.
    expect([g, await visitors(query('MONTH'), g)]).toEqual([g, ['d1 2026-03-01T00:00:00Z 2']]);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-analytics-distinct-'));
  // The migrations before 006, so rows exist before it (its backfill must pick them up).
  migrations = join(dir, 'migrations');
  await mkdir(migrations);
  for (const f of await readdir(DEFAULT_ANALYTICS_MIGRATIONS_DIR)) {
    if (f.endsWith('.sql') && f < DISTINCT) await copyFile(join(DEFAULT_ANALYTICS_MIGRATIONS_DIR, f), join(migrations, f));
  }
  store = await createChdbAnalyticsStore({ path: join(dir, 'data'), migrationsDir: migrations });
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

test('the backfill fills the masks and visitor rows from rows written before the migration', async () => {
  await store.insert('ping_logs', PINGS.slice(0, 3));
  await store.insert('impressions', IMPRESSIONS.slice(0, 2));
  // 006 and the migrations after it (007 sets its tables' deduplication window).
  for (const f of await readdir(DEFAULT_ANALYTICS_MIGRATIONS_DIR)) {
    if (f.endsWith('.sql') && f >= DISTINCT) await copyFile(join(DEFAULT_ANALYTICS_MIGRATIONS_DIR, f), join(migrations, f));
  }
  expect((await store.migrate())[0]).toBe('006_distinct_rollups');
  // The rest arrives through the views.
  await store.insert('ping_logs', PINGS.slice(3));
  await store.insert('impressions', IMPRESSIONS.slice(2));
  await expectKnownAnswers();
});

test('a replayed batch (same ids) and a re-run backfill change no distinct count', async () => {
  await store.insert('ping_logs', PINGS);
  await store.insert('impressions', IMPRESSIONS);
  // The migration's backfill again, as a re-run after a partial failure would (the sums double; the masks do not).
  await store.exec(`INSERT INTO device_rollup_hour SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage), countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90),
  groupBitOr(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC')))) FROM ping_logs FINAL GROUP BY account_id, device_id, period`);
  await store.exec(`INSERT INTO audience_visitors_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor_id`);
  await expectKnownAnswers();
  // Merged parts give the same answers.
  for (const t of ['ping_logs', 'impressions', 'device_rollup_hour', 'device_rollup_day', 'audience_visitors_hour', 'audience_visitors_day'])
    await store.exec(`OPTIMIZE TABLE ${t} FINAL`);
  await expectKnownAnswers();
});

test('day counts: answered once the days are over, a late impression answered at once and counted again, replays and re-runs change nothing', async () => {
  await countVisitorDays(store, { now: AFTER });
  // 2026-03-02: v1 and v2 (v1 on two files counts once); 03-03: v1.
  expect(await counted()).toEqual(['d1 2026-03-02 00:00:00 2', 'd1 2026-03-03 00:00:00 1']);
  await expectKnownAnswers();
  // A re-run counts nothing new and changes no answer; the same batch again neither.
  await countVisitorDays(store, { now: AFTER });
  await store.insert('impressions', IMPRESSIONS);
  await countVisitorDays(store, { now: AFTER });
  expect(await counted()).toEqual(['d1 2026-03-02 00:00:00 2', 'd1 2026-03-03 00:00:00 1']);
  await expectKnownAnswers();

  // A late visitor (v3) into the counted 2026-03-02 of d1, and a first one of d2 on that day: the
  // view marks both days invalid, the read counts their visitor rows at once.
  const late = [imp('d1', 'f1', '2026-03-02T20:00:00Z', 'v3'), imp('d2', 'f2', '2026-03-02T21:00:00Z', 'v1')];
  await store.insert('impressions', late);
  expect(await counted()).toEqual(['d1 2026-03-03 00:00:00 1']);
  const LATE_DAYS = ['d1 2026-03-02T00:00:00Z 3', 'd1 2026-03-03T00:00:00Z 1', 'd2 2026-03-02T00:00:00Z 1', 'd2 2026-03-03T00:00:00Z 0'];
  for (const g of ['DAY', 'RAW'] as const) expect([g, await visitors(query('DAY'), g)]).toEqual([g, LATE_DAYS]);
  // The next run counts them again; a run before they are over by an hour does not.
  await countVisitorDays(store, { now: new Date('2026-03-03T00:59:59Z') });
  expect(await counted()).toEqual(['d1 2026-03-03 00:00:00 1']);
  await countVisitorDays(store, { now: AFTER });
  expect(await counted()).toEqual(['d1 2026-03-02 00:00:00 3', 'd1 2026-03-03 00:00:00 1', 'd2 2026-03-02 00:00:00 1']);
  expect(await visitors(query('DAY'), 'DAY')).toEqual(LATE_DAYS);
  // Replayed late batch: nothing changes once counted again.
  await store.insert('impressions', late);
  await countVisitorDays(store, { now: AFTER });
  expect(await visitors(query('DAY'), 'DAY')).toEqual(LATE_DAYS);
  expect(await counted()).toEqual(['d1 2026-03-02 00:00:00 3', 'd1 2026-03-03 00:00:00 1', 'd2 2026-03-02 00:00:00 1']);
});

test("a range reaching into today counts today's visitor rows in the same select; a day without a valid count in a second one", async () => {
  let selects = 0;
  const counting = intercepted(store, { query: (sql, params) => (selects++, store.query(sql, params)) });
  const at = async (now: string) => {
    selects = 0;
    const m = await selectAudienceMetrics(counting, query('DAY'), true, 'DAY', { now: new Date(now) });
    return [m.map((x) => `${x.deviceId} ${x.periodStart} ${x.uniqueVisitors}`), selects];
  };
  const raw = await visitors(query('DAY'), 'RAW');
  // Both days counted (the test before): one select whatever today is, even a today that has a count.
  for (const now of ['2026-03-02T12:00:00Z', '2026-03-03T10:00:00Z', '2026-03-05T00:00:00Z']) expect([now, await at(now)]).toEqual([now, [raw, 1]]);
  // 03-02 of d1 invalidated: counted from its rows in a second select, unless it is today.
  await markLateVisitorDays(store, [imp('d1', 'f1', '2026-03-02T05:00:00Z', 'v1')]);
  expect(await at('2026-03-05T00:00:00Z')).toEqual([raw, 2]);
  expect(await at('2026-03-02T12:00:00Z')).toEqual([raw, 1]);
  await countVisitorDays(store, { now: AFTER });
  expect(await at('2026-03-05T00:00:00Z')).toEqual([raw, 1]);
});

test("a count taken while a late insert is in flight (its visitor rows not yet stored) is superseded by the ingest's mark after the insert", async () => {
  await countVisitorDays(store, { now: AFTER });
  const before = await counted();
  // The insert's visitor rows land after the count was taken: the stored count is stale until marked.
  const row = imp('d1', 'f2', '2026-03-03T10:00:00Z', 'v9');
  await store.exec(
    `INSERT INTO audience_visitors_day (account_id, device_id, file_id, period, visitor)
SELECT 'acc', 'd1', 'f2', toDateTime('2026-03-03 00:00:00', 'UTC'), reinterpretAsUInt128(sipHash128('v9'))`,
  );
  expect(await counted()).toEqual(before);
  // What the ingest does once its insert completed: the day's count is no longer used.
  expect(await markLateVisitorDays(store, [row, imp('d1', 'f2', '2999-01-01T00:00:00Z', 'v9'), imp('d1', 'f2', '2026-03-03T11:00:00Z', '')])).toBe(1);
  expect(await visitors(query('DAY'), 'DAY')).toEqual([
    'd1 2026-03-02T00:00:00Z 3',
    'd1 2026-03-03T00:00:00Z 2',
    'd2 2026-03-02T00:00:00Z 1',
    'd2 2026-03-03T00:00:00Z 0',
  ]);
  await countVisitorDays(store, { now: AFTER });
  expect(await counted()).toContain('d1 2026-03-03 00:00:00 2');
});
