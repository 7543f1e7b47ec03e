/**
 * Raw and rollup answers agree: random plays, pings, events and audience impressions (around a DST change), a random
 * range on hour boundaries, interval and zone; every rollup grain the planner allows for that
 * query gives the raw answer. Pings and impressions arrive as the ingest stores a replayed,
 * half-overlapping batch whose insert is retried after it landed (exactly once into 006's rollups).
 * The unique visitors of the finished days are then counted (009's day counts) and more impressions
 * arrive late into some of those days: a DAY series reads the valid counts and the visitor rows of
 * the rest, and still answers what the raw impressions answer. Local days in the zone (date-only
 * bounds read there, so ranges from non-UTC midnights) agree too, plays and pings, the uptime read
 * at a `now` inside the span.
 */
import fc from 'fast-check';
import type { AnalyticsStore } from '@pylon/kit';
import type { Interval } from '../src/domain/buckets.js';
import { parseDateRange } from '../src/domain/date-range.js';
import { grainsOf, planSplit, ROLLUPS, type Grain, type Source } from '../src/domain/rollup-plan.js';
import { selectAudienceMetrics } from '../src/features/audience/audience.queries.js';
import { selectDeviceMetrics } from '../src/features/device-metrics/device-metrics.queries.js';
import { selectEventMetrics } from '../src/features/events/event.queries.js';
import { selectPlayStatsByTime } from '../src/features/play-stats/play-stats.queries.js';
import type { PlayStatByTime } from '../src/shared/resolvers.generated.js';
import { exactlyOnce } from '../src/workers/exactly-once.js';
import { countVisitorDays } from '../src/workers/visitor-days.js';
import { allowedGrains, round, seriesQuery, withChdbStore } from './ingest.helpers.js';
import { eventRow, impressionRow, pingRow, playRow } from './fixtures/telemetry-rows.js';

let store: AnalyticsStore;
withChdbStore('pylon-analytics-rollup-', (s) => (store = s));

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 9, 20); // ten days around Europe's October DST change
const SPAN = 10 * 24 * HOUR;
const instant = fc.integer({ min: T0, max: T0 + SPAN - 1 });
const row = fc.record({
  t: instant,
  device: fc.constantFrom('d1', 'd2', 'd3'),
  file: fc.constantFrom('f1', 'f2', ''),
  n: fc.integer({ min: 0, max: 100 }),
  name: fc.constantFrom('a', 'b', 'c'),
  session: fc.constantFrom('', 's1', 's2'),
  // Sensors' own spellings, mapped onto the enums when read.
  gender: fc.constantFrom('male', ' F ', 'female', 'x', ''),
  age: fc.constantFrom('25-34', 'AGE18TO24', '75+', 'unknown', ''),
  visitor: fc.constantFrom('', 'v1', 'v2', 'v3'),
  // Only completed plays count (migration 007): absent means completed.
  status: fc.constantFrom(undefined, 'completed', 'skipped', 'failed'),
  /** An impression more into this row's day after the days were counted. */
  late: fc.boolean(),
});

/**
 * Stores `records` as the ingest does when they are delivered twice over (issue 17e): a first batch
 * of two thirds of them, then a batch overlapping it by half (the last two thirds) whose insert
 * lands but reports a failure, and its retry (the same plan and token).
 */
async function redelivered(table: string, records: Record<string, unknown>[]): Promise<void> {
  const once = exactlyOnce(1000);
  const put = (rows: Record<string, unknown>[], token: string) => store.insert(table, rows, { deduplicationToken: token });
  await once.insert(store, table, records.slice(0, Math.ceil((2 * records.length) / 3)), put);
  const second = records.slice(Math.floor(records.length / 3));
  try {
    await once.insert(store, table, second, async (rows, token) => {
      await put(rows, token);
      throw new Error('connection reset after the insert');
    });
  } catch {
    await once.insert(store, table, second, put);
  }
}

const RUNS = 8;
let run = 0;
let compared = 0;
let audienceCompared = 0;
let split = 0;
let dayCountsCompared = 0;
let zonedCompared = 0;
let filtered = 0;

/** The all-files series with each period's totals replaced by those of `file` (zeros where it did not play). */
function restrictedTo(all: PlayStatByTime[], byFile: PlayStatByTime[], file: string): PlayStatByTime[] {
  return all.map((p) => {
    const f = byFile.find((x) => x.fileId === file && x.periodStart === p.periodStart);
    return { ...p, totalPlays: f?.totalPlays ?? 0, totalDuration: f?.totalDuration ?? 0, avgDuration: f?.avgDuration ?? 0 };
  });
}
test('every allowed rollup grain answers what the raw tables answer', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(row, { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 0, max: 9 * 24 }),
      fc.integer({ min: 1, max: 5 * 24 }),
      fc.constantFrom<Interval>('HOUR', 'DAY', 'WEEK', 'MONTH'),
      fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'),
      async (rows, startHour, hours, interval, timeZone) => {
        const acc = `acc-${++run}`;
        const iso = (t: number) => new Date(t).toISOString();
        /** What every record `id` made from row r has: the account, r's device, r's time. */
        const record = (id: string, r: { device: string; t: number }) => ({ id, account_id: acc, device_id: r.device, timestamp: iso(r.t) });
        await store.insert(
          'play_logs',
          rows.map((r, i) =>
            playRow({
              ...record(`p${i}`, r),
              file_id: r.file,
              file_name: `${r.file}-${i}`,
              duration: r.n,
              type: '',
              ...(r.status ? { status: r.status } : {}),
            }),
          ),
        );
        await redelivered(
          'ping_logs',
          rows.map((r, i) => pingRow({ ...record(`g${i}`, r), cpu_usage: r.n, memory_usage: 100 - r.n, disk_usage: 1, player_version: '' })),
        );
        await store.insert(
          'event_logs',
          rows.map((r, i) => eventRow({ ...record(`e${i}`, r), session_id: r.session, event_name: r.name })),
        );
        // Three impressions per row (a minute apart, different dwell times), so rollup buckets hold several.
        await redelivered(
          'impressions',
          rows.flatMap((r, i) =>
            [0, 1, 2].map((k) =>
              impressionRow({
                ...record(`i${i}-${k}`, r),
                file_id: r.file,
                timestamp: iso(Math.min(r.t + k * 60_000, T0 + SPAN - 1)),
                sensor: 'cam',
                dwell_time: (r.n + k * 13) / 7,
                gender: r.gender,
                age_range: r.age,
                visitor_id: k === 2 ? '' : r.visitor,
              }),
            ),
          ),
        );
        // Every day of the data is over: counted. Then late impressions (new visitors) into the
        // days of some rows: their counts are invalid until the next run.
        await countVisitorDays(store, { now: new Date(T0 + SPAN + 2 * HOUR) });
        await store.insert(
          'impressions',
          rows
            .filter((r) => r.late)
            .map((r, i) =>
              impressionRow({
                ...record(`late${i}`, r),
                file_id: r.file,
                sensor: 'cam',
                dwell_time: 1,
                gender: r.gender,
                age_range: r.age,
                visitor_id: `late-${r.visitor}`,
              }),
            ),
        );
        const range = { from: new Date(T0 + startHour * HOUR), to: new Date(T0 + (startHour + hours) * HOUR) };
        const q = seriesQuery(acc, range, interval, { timeZone });
        const allowed = (grains: readonly Grain[]): Source[] => allowedGrains(q, grains);
        const playsRaw = round(await selectPlayStatsByTime(store, q, true, 'RAW'));
        for (const g of allowed(grainsOf(ROLLUPS.plays))) {
          compared++;
          expect([g, round(await selectPlayStatsByTime(store, q, true, g))]).toEqual([g, playsRaw]);
        }
        const pingsRaw = round(await selectDeviceMetrics(store, q, 'RAW'));
        for (const g of allowed(grainsOf(ROLLUPS.pings))) expect([g, round(await selectDeviceMetrics(store, q, g))]).toEqual([g, pingsRaw]);
        const eventsRaw = round(await selectEventMetrics(store, q, true, 'RAW'));
        for (const g of allowed(grainsOf(ROLLUPS.events))) expect([g, round(await selectEventMetrics(store, q, true, g))]).toEqual([g, eventsRaw]);
        const audienceRaw = round(await selectAudienceMetrics(store, q, true, 'RAW'));
        for (const g of allowed(grainsOf(ROLLUPS.audience))) {
          audienceCompared++;
          expect([g, round(await selectAudienceMetrics(store, q, true, g))]).toEqual([g, audienceRaw]);
          expect([g, round(await selectAudienceMetrics(store, q, true, g, { dayCounts: false }))]).toEqual([g, audienceRaw]);
        }
        // The whole span by UTC day (the day counts' case), all devices and two of them; also as
        // read on a day inside the span (today's visitor rows counted, the days after it too).
        for (const deviceIds of [[], ['d1', 'd3']]) {
          const days = seriesQuery(acc, { from: new Date(T0), to: new Date(T0 + SPAN) }, 'DAY', { deviceIds });
          const daysRaw = round(await selectAudienceMetrics(store, days, true, 'RAW'));
          expect(round(await selectAudienceMetrics(store, days, true, 'DAY'))).toEqual(daysRaw);
          expect(round(await selectAudienceMetrics(store, days, true, 'DAY', { now: new Date(T0 + startHour * HOUR) }))).toEqual(daysRaw);
          expect(round(await selectAudienceMetrics(store, days, true, 'DAY', { dayCounts: false }))).toEqual(daysRaw);
          dayCountsCompared++;
        }
        // A range with ragged ends ("the last N hours" ending now): the planner's answer (a rollup
        // inside, raw rows on the ends, or raw) is the raw answer.
        const ragged = { from: new Date(range.from.getTime() + 17 * 60_000 + 3_250), to: new Date(range.to.getTime() - 7_500) };
        const r = seriesQuery(acc, ragged, interval, { timeZone });
        if (planSplit(r.range, r.buckets, grainsOf(ROLLUPS.plays))) split++;
        for (const byFile of [true, false]) {
          expect(round(await selectPlayStatsByTime(store, r, byFile))).toEqual(round(await selectPlayStatsByTime(store, r, byFile, 'RAW')));
        }
        // Local days as a person writes them ("2026-10-24".."2026-10-26" in the zone: from and to at
        // its midnights, 23/25-hour days included), with the uptime read at a "now" inside the span.
        const localDay = (h: number) => new Date(T0 + h * HOUR).toISOString().slice(0, 10);
        const local = seriesQuery(acc, parseDateRange(localDay(startHour), localDay(startHour + hours), timeZone), interval, { timeZone });
        const now = new Date(T0 + (startHour + 7) * HOUR + 1_234);
        const localPlays = round(await selectPlayStatsByTime(store, local, true, 'RAW'));
        for (const g of allowedGrains(local, grainsOf(ROLLUPS.plays)))
          expect([g, round(await selectPlayStatsByTime(store, local, true, g))]).toEqual([g, localPlays]);
        const localPings = round(await selectDeviceMetrics(store, local, 'RAW', { now }));
        for (const g of allowedGrains(local, grainsOf(ROLLUPS.pings))) {
          zonedCompared++;
          expect([g, round(await selectDeviceMetrics(store, local, g, { now }))]).toEqual([g, localPings]);
        }
        // A file filter reads the same buckets of the rollup.
        const oneFile = { ...q, fileIds: ['f1'] };
        const fileRaw = round(await selectAudienceMetrics(store, oneFile, true, 'RAW'));
        for (const g of allowed(grainsOf(ROLLUPS.audience))) expect([g, round(await selectAudienceMetrics(store, oneFile, true, g))]).toEqual([g, fileRaw]);
        // Issue 35: every rollup-served series with a fileId or deviceId filter answers the unfiltered
        // series restricted to that file or device (a file filter on plays read zeros from the rollups).
        for (const base of [q, r, local]) {
          const byFile = await selectPlayStatsByTime(store, base, true, 'RAW');
          const plays = allowedGrains(base, grainsOf(ROLLUPS.plays));
          for (const file of ['f1', 'f2']) {
            const only = round(restrictedTo(await selectPlayStatsByTime(store, base, false, 'RAW'), byFile, file));
            const fq = { ...base, fileIds: [file] };
            for (const g of [undefined, 'RAW' as const, ...plays]) {
              filtered++;
              expect([g, file, round(await selectPlayStatsByTime(store, fq, false, g))]).toEqual([g, file, only]);
            }
          }
          const dq = { ...base, deviceIds: ['d1'] };
          const devicePlays = round(await selectPlayStatsByTime(store, dq, true, 'RAW'));
          for (const g of [undefined, ...plays]) expect([g, round(await selectPlayStatsByTime(store, dq, true, g))]).toEqual([g, devicePlays]);
          const pings = round((await selectDeviceMetrics(store, base, 'RAW', { now })).filter((m) => m.deviceId === 'd1'));
          for (const g of [undefined, ...allowedGrains(base, grainsOf(ROLLUPS.pings))])
            expect([g, round(await selectDeviceMetrics(store, dq, g, { now }))]).toEqual([g, pings]);
          const events = round(await selectEventMetrics(store, dq, true, 'RAW'));
          for (const g of [undefined, ...allowedGrains(base, grainsOf(ROLLUPS.events))])
            expect([g, round(await selectEventMetrics(store, dq, true, g))]).toEqual([g, events]);
          const audience = round((await selectAudienceMetrics(store, base, true, 'RAW')).filter((m) => m.deviceId === 'd1'));
          for (const g of [undefined, ...allowedGrains(base, grainsOf(ROLLUPS.audience))])
            expect([g, round(await selectAudienceMetrics(store, dq, true, g, { dayCounts: false }))]).toEqual([g, audience]);
        }
      },
    ),
    // 8 random cases per run (~4 s each on CI's 2 cores); each CI run draws new ones.
    { numRuns: RUNS },
  );
  // The ranges are on hour boundaries: most runs compare at least one rollup.
  expect(compared).toBeGreaterThan(RUNS * 0.4);
  expect(audienceCompared).toBeGreaterThan(RUNS * 0.2);
  expect(split).toBeGreaterThan(RUNS * 0.2);
  expect(dayCountsCompared).toBeGreaterThan(0);
  expect(zonedCompared).toBeGreaterThan(RUNS * 0.2);
  expect(filtered).toBeGreaterThan(RUNS * 4);
}, 300_000);
