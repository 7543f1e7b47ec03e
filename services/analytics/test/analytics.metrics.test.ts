/**
 * The analytics queries against data with known answers: totals, averages, uptime, OTS, Sankey
 * links, heat-map weights, period boundaries in UTC and in a zone on DST days (ClickHouse's
 * periods must be the bucketing engine's), empty periods as zeros, validation, tenancy, policy.
 */
import { AppError, POLICIES, QUERY_RULES, type AnalyticsStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { parseDateRange } from '../src/domain/date-range.js';
import { grainsOf, ROLLUPS } from '../src/domain/rollup-plan.js';
import type { ReportDirectory } from '../src/ports/report-directory.js';
import { selectDeviceMetrics } from '../src/features/device-metrics/device-metrics.queries.js';
import { allowedGrains, seriesQuery } from './ingest.helpers.js';
import { eventRow, impressionRow, pingRow, playRow, position, type At } from './fixtures/telemetry-rows.js';
import { createAnalyticsSubgraph } from '../src/app.js';

const principal = testPrincipal;
let store: AnalyticsStore;
let sg: ReturnType<typeof createAnalyticsSubgraph>;
const run = subgraphRunner(() => sg, principal('acc-a'));

async function data<T = Record<string, unknown>[]>(query: string, vars: Record<string, unknown> = {}, who = principal('acc-a')): Promise<T> {
  const r = await run(query, vars, who);
  expect(r.errors).toBeUndefined();
  return Object.values(r.data as Record<string, unknown>)[0] as T;
}
async function refusal(query: string, vars: Record<string, unknown> = {}): Promise<Record<string, unknown> | undefined> {
  const r = await run(query, vars);
  expect(r.errors).toBeDefined();
  return r.errors?.[0]?.extensions as Record<string, unknown>;
}

let n = 0;
const play = (device: string, file: string, timestamp: string, duration: number, file_name = `${file}.mp4`, account = 'acc-a') =>
  playRow({ id: `p${++n}`, account_id: account, device_id: device, file_id: file, file_name, timestamp, duration, playlist_id: 'pl', schedule_id: 'sc' });
const ping = (device: string, timestamp: string, cpu: number, mem: number, disk = 5, account = 'acc-a') =>
  pingRow({ id: `g${++n}`, account_id: account, device_id: device, timestamp, cpu_usage: cpu, memory_usage: mem, disk_usage: disk, player_version: '4' });
const imp = (device_id: string, file_id: string, timestamp: string, gender: string, age_range: string, visitor_id: string, dwell_time: number, at: At = null) =>
  impressionRow({ id: `i${++n}`, account_id: 'acc-a', device_id, file_id, timestamp, dwell_time, gender, age_range, visitor_id, ...position(at) });
const ev = (id: string, device: string, session: string, name: string, timestamp: string, account = 'acc-a', at: At = null) =>
  eventRow({ id, account_id: account, device_id: device, session_id: session, event_name: name, timestamp, properties: '{"k":1}', ...position(at) });

beforeAll(async () => {
  store = await createScratchChdbStore('pylon-analytics-metrics-');
  await store.migrate();
  sg = createAnalyticsSubgraph({ analytics: store, tokens: testTokens });
  const plays = [
    play('d1', 'f1', '2026-03-28T10:00:00Z', 10),
    play('d1', 'f1', '2026-03-28T23:30:00Z', 20), // Berlin: 29 March 00:30
    play('d1', 'f2', '2026-03-29T12:00:00Z', 30, 'f2-old.mp4'),
    play('d2', 'f1', '2026-03-29T22:30:00Z', 40), // Berlin (CEST): 30 March 00:30
    play('d2', 'f2', '2026-03-31T08:00:00Z', 60, 'Deleted.mp4'),
    play('d3', 'f3', '2026-10-25T00:30:00Z', 5), // Berlin 02:30 CEST
    play('d3', 'f3', '2026-10-25T01:30:00Z', 7), // Berlin 02:30 CET
    play('d1', 'f1', '2026-03-29T12:00:00Z', 99, 'b.mp4', 'acc-b'),
  ];
  await store.insert('play_logs', plays);
  await store.insert('ping_logs', [
    ping('d1', '2026-03-29T10:00:10Z', 10, 20),
    ping('d1', '2026-03-29T10:00:40Z', 30, 40),
    ping('d1', '2026-03-29T10:01:00Z', 95, 10),
    ping('d1', '2026-03-29T10:30:00Z', 20, 30, 91),
    ping('d2', '2026-03-29T11:15:00Z', 50, 50),
    ping('d1', '2026-03-29T10:05:00Z', 99, 99, 99, 'acc-b'),
  ]);
  await store.insert('impressions', [
    imp('d1', 'f2', '2026-03-29T12:00:05Z', 'female', '25-34', 'v1', 4, [52.52001, 13.40499]),
    imp('d1', 'f2', '2026-03-29T12:00:10Z', 'male', '18-24', 'v2', 6, [52.52004, 13.40502]),
    imp('d1', 'f2', '2026-03-29T12:00:20Z', 'M', 'AGE18TO24', 'v1', 2),
    imp('d1', 'f2', '2026-03-29T12:00:40Z', 'x', '', 'v3', 8, [48.1, 11.6]), // after the 30 s play
    imp('d2', 'f2', '2026-03-31T08:00:30Z', 'F', '75+', '', 10),
  ]);
  await store.insert('event_logs', [
    ev('e1', 'd1', 's1', 'home', '2026-03-29T09:00:00Z'),
    ev('e2', 'd1', 's1', 'menu', '2026-03-29T09:01:00Z'),
    ev('e3', 'd1', 's1', 'product', '2026-03-29T09:02:00Z'),
    ev('e4', 'd1', 's1', 'menu', '2026-03-29T09:03:00Z'),
    ev('e5', 'd1', 's1', 'product', '2026-03-29T09:04:00Z'),
    ev('e6', 'd1', 's2', 'home', '2026-03-29T10:00:00Z'),
    ev('e7', 'd1', 's2', 'product', '2026-03-29T10:01:00Z'),
    ev('e8', 'd2', 's1', 'home', '2026-03-29T11:00:00Z'),
    ev('e9', 'd2', 's1', 'menu', '2026-03-29T11:00:00Z'), // same instant: id order
    ev('e10', 'd1', '', 'alert', '2026-03-29T12:00:00Z', 'acc-a', [52.5, 13.4]),
    ev('e11', 'd1', 's1', 'home', '2026-03-29T09:30:00Z', 'acc-b'),
  ]);
});

afterAll(() => store?.close());

const BY_TIME = `query($s: String!, $e: String!, $i: AnalyticsIntervalType, $g: Boolean, $tz: String, $d: [String!], $l: Int) {
  playStatsByTime(startDate: $s, endDate: $e, interval: $i, groupByFile: $g, timeZone: $tz, deviceId: $d, limit: $l) {
    fileId fileName periodStart periodEnd totalPlays totalDuration avgDuration } }`;

describe('playStatsByTime', () => {
  test('per UTC day, empty days as zeros', async () => {
    const rows = await data(BY_TIME, { s: '2026-03-28', e: '2026-03-31' });
    expect(rows).toEqual([
      {
        fileId: null,
        fileName: null,
        periodStart: '2026-03-28T00:00:00Z',
        periodEnd: '2026-03-29T00:00:00Z',
        totalPlays: 2,
        totalDuration: 30,
        avgDuration: 15,
      },
      {
        fileId: null,
        fileName: null,
        periodStart: '2026-03-29T00:00:00Z',
        periodEnd: '2026-03-30T00:00:00Z',
        totalPlays: 2,
        totalDuration: 70,
        avgDuration: 35,
      },
      { fileId: null, fileName: null, periodStart: '2026-03-30T00:00:00Z', periodEnd: '2026-03-31T00:00:00Z', totalPlays: 0, totalDuration: 0, avgDuration: 0 },
      {
        fileId: null,
        fileName: null,
        periodStart: '2026-03-31T00:00:00Z',
        periodEnd: '2026-04-01T00:00:00Z',
        totalPlays: 1,
        totalDuration: 60,
        avgDuration: 60,
      },
    ]);
  });

  test('per Berlin day across the spring DST change: a 23-hour day, plays moved by the zone', async () => {
    const rows = await data<{ periodStart: string; periodEnd: string; totalPlays: number }[]>(BY_TIME, {
      s: '2026-03-28T00:00:00+01:00',
      e: '2026-03-31T23:59:59+02:00',
      tz: 'Europe/Berlin',
    });
    expect(rows.map((r) => [r.periodStart, r.periodEnd, r.totalPlays])).toEqual([
      ['2026-03-27T23:00:00Z', '2026-03-28T23:00:00Z', 1],
      ['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', 2],
      ['2026-03-29T22:00:00Z', '2026-03-30T22:00:00Z', 1],
      ['2026-03-30T22:00:00Z', '2026-03-31T22:00:00Z', 1],
    ]);
  });

  test('per Berlin hour on the autumn DST day: the repeated 02:00 hour is two periods', async () => {
    const rows = await data<{ periodStart: string; totalPlays: number; totalDuration: number }[]>(BY_TIME, {
      s: '2026-10-25T00:00:00+02:00',
      e: '2026-10-25T03:59:59+01:00',
      i: 'HOUR',
      tz: 'Europe/Berlin',
    });
    expect(rows.map((r) => [r.periodStart, r.totalPlays, r.totalDuration])).toEqual([
      ['2026-10-24T22:00:00Z', 0, 0],
      ['2026-10-24T23:00:00Z', 0, 0],
      ['2026-10-25T00:00:00Z', 1, 5],
      ['2026-10-25T01:00:00Z', 1, 7],
      ['2026-10-25T02:00:00Z', 0, 0],
    ]);
  });

  test('weeks start on Monday; months in New York start at its midnight', async () => {
    const weeks = await data<{ periodStart: string; totalPlays: number }[]>(BY_TIME, { s: '2026-03-23', e: '2026-04-05', i: 'WEEK' });
    expect(weeks.map((r) => [r.periodStart, r.totalPlays])).toEqual([
      ['2026-03-23T00:00:00Z', 4],
      ['2026-03-30T00:00:00Z', 1],
    ]);
    const months = await data<{ periodStart: string; periodEnd: string; totalPlays: number }[]>(BY_TIME, {
      s: '2026-03-01T00:00:00-05:00',
      e: '2026-04-30T23:59:59-04:00',
      i: 'MONTH',
      tz: 'America/New_York',
    });
    expect(months.map((r) => [r.periodStart, r.periodEnd, r.totalPlays])).toEqual([
      ['2026-03-01T05:00:00Z', '2026-04-01T04:00:00Z', 5],
      ['2026-04-01T04:00:00Z', '2026-05-01T04:00:00Z', 0],
    ]);
  });

  test('groupByFile: one series per file, named by its latest play; limit cuts the rows', async () => {
    const rows = await data<{ fileId: string; fileName: string; totalPlays: number }[]>(BY_TIME, { s: '2026-03-28', e: '2026-03-31', g: true });
    expect(rows.map((r) => [r.fileId, r.fileName, r.totalPlays])).toEqual([
      ['f1', 'f1.mp4', 2],
      ['f1', 'f1.mp4', 1],
      ['f1', 'f1.mp4', 0],
      ['f1', 'f1.mp4', 0],
      ['f2', 'Deleted.mp4', 0],
      ['f2', 'Deleted.mp4', 1],
      ['f2', 'Deleted.mp4', 0],
      ['f2', 'Deleted.mp4', 1],
    ]);
    expect(await data(BY_TIME, { s: '2026-03-28', e: '2026-03-31', g: true, l: 3 })).toHaveLength(3);
    const d2 = await data<{ totalPlays: number }[]>(BY_TIME, { s: '2026-03-28', e: '2026-03-31', d: ['d2'] });
    expect(d2.map((r) => r.totalPlays)).toEqual([0, 1, 0, 1]);
  });
});

describe('date-only bounds with a timeZone are local days', () => {
  const Z = `query($s: String!, $e: String!, $i: AnalyticsIntervalType, $tz: String) {
    playStatsByTime(startDate: $s, endDate: $e, interval: $i, timeZone: $tz) { periodStart periodEnd totalPlays } }`;
  type Row = { periodStart: string; periodEnd: string; totalPlays: number };
  test('the 23-hour Berlin day of the spring change is one period, its plays only', async () => {
    const rows = await data<Row[]>(Z, { s: '2026-03-29', e: '2026-03-29', tz: 'Europe/Berlin' });
    // 23:30Z on the 28th is 00:30 on the 29th in Berlin; 22:30Z on the 29th is the 30th there.
    expect(rows).toEqual([{ periodStart: '2026-03-28T23:00:00Z', periodEnd: '2026-03-29T22:00:00Z', totalPlays: 2 }]);
  });
  test('the 25-hour Berlin day of the autumn change: 25 hourly periods, the repeated 02:00 twice', async () => {
    const days = await data<Row[]>(Z, { s: '2026-10-25', e: '2026-10-25', tz: 'Europe/Berlin' });
    expect(days).toEqual([{ periodStart: '2026-10-24T22:00:00Z', periodEnd: '2026-10-25T23:00:00Z', totalPlays: 2 }]);
    const hours = await data<Row[]>(Z, { s: '2026-10-25', e: '2026-10-25', i: 'HOUR', tz: 'Europe/Berlin' });
    expect(hours).toHaveLength(25);
    expect([hours[0]!.periodStart, hours.at(-1)!.periodEnd]).toEqual(['2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z']);
    expect(hours.filter((r) => r.totalPlays > 0).map((r) => r.periodStart)).toEqual(['2026-10-25T00:00:00Z', '2026-10-25T01:00:00Z']);
  });
  test('a date-time without an offset is wall time in the zone; with one it is exact', async () => {
    // 2026-03-29 00:00 to 13:59:59 in Berlin (CEST from 03:00): 23:00Z on the 28th to 11:59:59Z.
    const local = await data<Row[]>(Z, { s: '2026-03-29T00:00', e: '2026-03-29T13:59:59', tz: 'Europe/Berlin' });
    expect(local.map((r) => r.totalPlays)).toEqual([1]); // 23:30Z; the 12:00Z play is after 13:59:59 CEST
    const exact = await data<Row[]>(Z, { s: '2026-03-29T00:00:00Z', e: '2026-03-29T13:59:59Z', tz: 'Europe/Berlin' });
    expect(exact.map((r) => r.totalPlays)).toEqual([1]); // the 12:00Z play; 23:30Z on the 28th is before
    expect(exact[0]!.periodStart).toBe('2026-03-28T23:00:00Z');
  });
  test('audienceMetrics for one New York day is one period per device, not two half days', async () => {
    const rows = await data<{ deviceId: string; periodStart: string; periodEnd: string; totalImpressions: number }[]>(
      `{ audienceMetrics(startDate: "2026-03-29", endDate: "2026-03-29", interval: DAY, timeZone: "America/New_York") {
        deviceId periodStart periodEnd totalImpressions } }`,
    );
    expect(rows).toEqual([{ deviceId: 'd1', periodStart: '2026-03-29T04:00:00Z', periodEnd: '2026-03-30T04:00:00Z', totalImpressions: 4 }]);
  });
});

describe('play statistics', () => {
  test('per file, per device, per device and file; names kept for deleted files', async () => {
    const v = { s: '2026-03-28', e: '2026-03-31' };
    const media = await data(
      'query($s: String!, $e: String!) { mediaPlayStats(startDate: $s, endDate: $e) { fileId fileName file { id } totalPlays totalDuration avgDuration deviceCount firstPlayed lastPlayed } }',
      v,
    );
    expect(media).toEqual([
      {
        fileId: 'f1',
        fileName: 'f1.mp4',
        file: { id: 'f1' },
        totalPlays: 3,
        totalDuration: 70,
        avgDuration: 70 / 3,
        deviceCount: 2,
        firstPlayed: '2026-03-28T10:00:00Z',
        lastPlayed: '2026-03-29T22:30:00Z',
      },
      {
        fileId: 'f2',
        fileName: 'Deleted.mp4',
        file: { id: 'f2' },
        totalPlays: 2,
        totalDuration: 90,
        avgDuration: 45,
        deviceCount: 2,
        firstPlayed: '2026-03-29T12:00:00Z',
        lastPlayed: '2026-03-31T08:00:00Z',
      },
    ]);
    const devices = await data(
      'query($s: String!, $e: String!) { devicePlayStats(startDate: $s, endDate: $e) { deviceId device { id } totalPlays totalDuration avgDuration fileCount } }',
      v,
    );
    expect(devices).toEqual([
      { deviceId: 'd1', device: { id: 'd1' }, totalPlays: 3, totalDuration: 60, avgDuration: 20, fileCount: 2 },
      { deviceId: 'd2', device: { id: 'd2' }, totalPlays: 2, totalDuration: 100, avgDuration: 50, fileCount: 2 },
    ]);
    const both = await data<{ deviceId: string; fileId: string; totalPlays: number; totalDuration: number }[]>(
      'query($s: String!, $e: String!, $f: [String!]) { deviceMediaPlayStats(startDate: $s, endDate: $e, fileId: $f) { deviceId fileId totalPlays totalDuration } }',
      v,
    );
    expect(both.map((r) => [r.deviceId, r.fileId, r.totalPlays, r.totalDuration])).toEqual([
      ['d1', 'f1', 2, 30],
      ['d1', 'f2', 1, 30],
      ['d2', 'f1', 1, 40],
      ['d2', 'f2', 1, 60],
    ]);
    const onlyF2 = await data<unknown[]>(
      'query($s: String!, $e: String!, $f: [String!]) { deviceMediaPlayStats(startDate: $s, endDate: $e, fileId: $f) { deviceId } }',
      {
        ...v,
        f: ['f2'],
      },
    );
    expect(onlyF2).toHaveLength(2);
  });
});

describe('deviceMetrics', () => {
  const Q = `query($s: String!, $e: String!, $i: AnalyticsIntervalType) { deviceMetrics(startDate: $s, endDate: $e, interval: $i) {
    deviceId periodStart periodEnd avgCpuUsage maxCpuUsage avgMemoryUsage maxMemoryUsage uptimePercentage alertCount } }`;
  test('averages, peaks, uptime and alerts per device and hour, zeros where nothing pinged', async () => {
    const rows = await data(Q, { s: '2026-03-29T10:00:00Z', e: '2026-03-29T11:59:59Z', i: 'HOUR' });
    const zero = { avgCpuUsage: 0, maxCpuUsage: 0, avgMemoryUsage: 0, maxMemoryUsage: 0, uptimePercentage: 0, alertCount: 0 };
    expect(rows).toEqual([
      {
        deviceId: 'd1',
        periodStart: '2026-03-29T10:00:00Z',
        periodEnd: '2026-03-29T11:00:00Z',
        avgCpuUsage: 38.75,
        maxCpuUsage: 95,
        avgMemoryUsage: 25,
        maxMemoryUsage: 40,
        uptimePercentage: 5, // minutes 10:00, 10:01, 10:30 of 60
        alertCount: 2,
      },
      { deviceId: 'd1', periodStart: '2026-03-29T11:00:00Z', periodEnd: '2026-03-29T12:00:00Z', ...zero },
      { deviceId: 'd2', periodStart: '2026-03-29T10:00:00Z', periodEnd: '2026-03-29T11:00:00Z', ...zero },
      {
        deviceId: 'd2',
        periodStart: '2026-03-29T11:00:00Z',
        periodEnd: '2026-03-29T12:00:00Z',
        avgCpuUsage: 50,
        maxCpuUsage: 50,
        avgMemoryUsage: 50,
        maxMemoryUsage: 50,
        uptimePercentage: 100 / 60,
        alertCount: 0,
      },
    ]);
  });
  test('uptime counts only the minutes of the period inside the range', async () => {
    const [d1] = await data<{ uptimePercentage: number }[]>(Q, { s: '2026-03-29T10:00:00Z', e: '2026-03-29T10:01:59Z', i: 'DAY' });
    expect(d1!.uptimePercentage).toBe(100); // 10:00 and 10:01, both pinged
  });

  describe('uptime counts only the minutes elapsed by now', () => {
    const NOW = new Date('2026-11-25T09:40:30Z');
    const upOf = async (startDate: string, endDate: string, interval: 'HOUR' | 'DAY', o: { devices?: string[] } = {}) => {
      const q = seriesQuery('acc-now', parseDateRange(startDate, endDate), interval);
      const answers = [];
      // The planner's choice and every grain it allows agree (each counts the elapsed minutes alike).
      for (const source of ['RAW', ...allowedGrains(q, grainsOf(ROLLUPS.pings))] as const) {
        const rows = await selectDeviceMetrics(store, q, source, { now: NOW, ...o });
        answers.push([source, rows.map((r) => [r.deviceId, r.periodStart, r.uptimePercentage])]);
      }
      expect(new Set(answers.map(([, a]) => JSON.stringify(a))).size).toBe(1);
      return { sources: answers.map(([s]) => s), rows: answers[0]![1] as [string, string, number][] };
    };
    beforeAll(async () => {
      // A ping every minute from 09:30 to 09:40 (11 minutes) on the day "now" is in.
      await store.insert(
        'ping_logs',
        Array.from({ length: 11 }, (_, i) => ping('dn', `2026-11-25T09:${30 + i}:05Z`, 10, 10, 5, 'acc-now')),
      );
    });
    test('pinging since the range began is 100 % so far', async () => {
      const { rows } = await upOf('2026-11-25T09:30:00Z', '2026-11-25', 'DAY');
      expect(rows).toEqual([['dn', '2026-11-25T00:00:00Z', 100]]);
    });
    test('the whole day so far: 11 pinged of the 581 minutes begun by 09:40:30; on raw and both rollups', async () => {
      const { sources, rows } = await upOf('2026-11-25', '2026-11-25', 'DAY');
      expect(sources).toEqual(['RAW', 'HOUR', 'DAY']);
      expect(rows).toEqual([['dn', '2026-11-25T00:00:00Z', (100 * 11) / 581]]);
      const hours = await upOf('2026-11-25', '2026-11-25', 'HOUR');
      expect(hours.sources).toEqual(['RAW', 'HOUR']);
      expect(hours.rows.slice(8, 11)).toEqual([
        ['dn', '2026-11-25T08:00:00Z', 0],
        ['dn', '2026-11-25T09:00:00Z', (100 * 11) / 41],
        ['dn', '2026-11-25T10:00:00Z', 0],
      ]);
    });
    test('a range wholly after now has uptime 0 (no elapsed minutes, no division by zero)', async () => {
      const { rows } = await upOf('2026-11-26', '2026-11-27', 'DAY', { devices: ['dn'] });
      expect(rows).toEqual([
        ['dn', '2026-11-26T00:00:00Z', 0],
        ['dn', '2026-11-27T00:00:00Z', 0],
      ]);
    });
  });

  test('power schedules: uptime is over the on-hours only, whatever the source planned (pings while off do not count)', async () => {
    // dp pings every minute of 2026-11-20 (a web player keeps pinging while blank); dq pings 07:00-18:59 only
    // (unplugged at night). Both are off 19:00-07:00 by their schedule: 12 on-hours of 24.
    const minutes = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => new Date(Date.parse('2026-11-20T00:00:30Z') + (from + i) * 60_000).toISOString());
    await store.insert('ping_logs', [
      ...minutes(0, 1440).map((t) => ping('dp', t, 10, 10, 5, 'acc-power')),
      ...minutes(7 * 60, 12 * 60).map((t) => ping('dq', t, 10, 10, 5, 'acc-power')),
    ]);
    const at = (h: number) => Date.parse('2026-11-20T00:00:00Z') + h * 3_600_000;
    const nights: [number, number][] = [
      [at(0), at(7)],
      [at(19), at(24)],
    ];
    const q = seriesQuery('acc-power', parseDateRange('2026-11-20', '2026-11-20'), 'DAY');
    const up = async (o: Parameters<typeof selectDeviceMetrics>[3]) =>
      (await selectDeviceMetrics(store, q, undefined, { now: new Date('2026-12-01T00:00:00Z'), ...o })).map((r) => [r.deviceId, r.uptimePercentage]);
    // Without schedules (the planner reads the day rollup): dp up all day, dq half of it.
    expect(await up({})).toEqual([
      ['dp', 100],
      ['dq', 50],
    ]);
    // With them both are up over every on-hour; another device's off-hours change nothing of dp's.
    const off = new Map([
      ['dp', nights],
      ['dq', nights],
    ]);
    expect(await up({ off })).toEqual([
      ['dp', 100],
      ['dq', 100],
    ]);
    expect(await up({ off: new Map([['dq', [[at(7), at(19)]] as [number, number][]]]) })).toEqual([
      ['dp', 100],
      ['dq', 0],
    ]);
  });
});

describe("a deviceId filter's own devices each get a series, zeros without data", () => {
  // The caller's devices, as the devices subgraph answers (d9 never pinged nor saw anyone).
  const mine = new Map([
    ['d1', 'Lobby'],
    ['d2', 'Bar'],
    ['d9', 'Silent'],
  ]);
  const directory: ReportDirectory = {
    devices: async (c, ids) => new Map(c.accountId === 'acc-a' ? ids.filter((i) => mine.has(i)).map((i) => [i, mine.get(i)!]) : []),
    media: async () => new Map(),
    playlists: async () => new Map(),
    schedules: async () => new Map(),
    listDevices: async (c) => new Map(c.accountId === 'acc-a' ? mine : []),
  };
  let withDirectory: ReturnType<typeof createAnalyticsSubgraph>;
  beforeAll(() => {
    withDirectory = createAnalyticsSubgraph({ analytics: store, tokens: testTokens, directory });
  });
  const runWith = subgraphRunner(() => withDirectory, principal('acc-a'));
  const DM = `query($d: [String!]) { deviceMetrics(startDate: "2026-03-29T10:00:00Z", endDate: "2026-03-29T11:59:59Z", interval: HOUR, deviceId: $d) {
    deviceId deviceName periodStart uptimePercentage avgCpuUsage } }`;
  test("deviceMetrics: a listed device without pings is zeros; an id not the caller's stays out", async () => {
    const r = await runWith(DM, { d: ['d1', 'd9', 'someone-elses'] });
    expect(r.errors).toBeUndefined();
    const rows = (r.data as { deviceMetrics: { deviceId: string; deviceName: string; periodStart: string; uptimePercentage: number }[] }).deviceMetrics;
    expect(rows.map((x) => [x.deviceId, x.deviceName, x.periodStart, x.uptimePercentage])).toEqual([
      ['d1', 'Lobby', '2026-03-29T10:00:00Z', 5],
      ['d1', 'Lobby', '2026-03-29T11:00:00Z', 0],
      ['d9', 'Silent', '2026-03-29T10:00:00Z', 0],
      ['d9', 'Silent', '2026-03-29T11:00:00Z', 0],
    ]);
    // Without a filter: the devices that pinged, as before.
    const all = await runWith(DM, {});
    expect([...new Set((all.data as { deviceMetrics: { deviceId: string }[] }).deviceMetrics.map((x) => x.deviceId))]).toEqual(['d1', 'd2']);
    // Another account's caller naming d9 gets nothing: the directory does not confirm it for them.
    const foreign = await runWith(DM, { d: ['d9'] }, principal('acc-b'));
    expect(foreign.data).toEqual({ deviceMetrics: [] });
  });
  test('the ownership check runs beside the SQL: a late answer still adds its series, a failure is the answer', async () => {
    let release!: () => void;
    const late = new Promise<void>((r) => (release = r));
    const slow = createAnalyticsSubgraph({
      analytics: store,
      tokens: testTokens,
      directory: { ...directory, devices: async (c, ids) => (await late, directory.devices(c, ids)) },
    });
    const pending = subgraphRunner(() => slow, principal('acc-a'))(DM, { d: ['d9'] });
    // The answer waits for the check, whenever it comes.
    await new Promise((r) => setTimeout(r, 50));
    release();
    const r = await pending;
    expect((r.data as { deviceMetrics: { deviceId: string }[] }).deviceMetrics.map((x) => x.deviceId)).toEqual(['d9', 'd9']);
    const failing = createAnalyticsSubgraph({
      analytics: store,
      tokens: testTokens,
      directory: { ...directory, devices: async () => Promise.reject(new AppError('UNAVAILABLE', 'the devices service did not answer')) },
    });
    for (const q of [DM, `{ audienceMetrics(startDate: "2026-03-29", endDate: "2026-03-30", deviceId: ["d9"]) { deviceId } }`]) {
      const f = await subgraphRunner(() => failing, principal('acc-a'))(q, { d: ['d9'] });
      expect(f.errors?.[0]).toMatchObject({ message: 'the devices service did not answer', extensions: { code: 'SERVICE_UNAVAILABLE' } });
    }
  });
  test('audienceMetrics: the same for a listed device without impressions', async () => {
    const r = await runWith(
      `{ audienceMetrics(startDate: "2026-03-29", endDate: "2026-03-30", deviceId: ["d9", "d1"]) { deviceId periodStart totalImpressions uniqueVisitors } }`,
    );
    expect(r.errors).toBeUndefined();
    expect((r.data as { audienceMetrics: unknown[] }).audienceMetrics).toEqual([
      { deviceId: 'd1', periodStart: '2026-03-29T00:00:00Z', totalImpressions: 4, uniqueVisitors: 3 },
      { deviceId: 'd1', periodStart: '2026-03-30T00:00:00Z', totalImpressions: 0, uniqueVisitors: 0 },
      { deviceId: 'd9', periodStart: '2026-03-29T00:00:00Z', totalImpressions: 0, uniqueVisitors: 0 },
      { deviceId: 'd9', periodStart: '2026-03-30T00:00:00Z', totalImpressions: 0, uniqueVisitors: 0 },
    ]);
  });
});

describe('audience', () => {
  const Q = `query($s: String!, $e: String!, $dw: Boolean) { audienceMetrics(startDate: $s, endDate: $e, includeDwellTime: $dw) {
    deviceId periodStart totalImpressions uniqueVisitors avgDwellTime maleCount femaleCount unknownGenderCount
    ageUnder18 age18To24 age25To34 age35To44 age45To54 age55To64 age65To74 ageOver74 } }`;
  const ages = { ageUnder18: 0, age18To24: 0, age25To34: 0, age35To44: 0, age45To54: 0, age55To64: 0, age65To74: 0, ageOver74: 0 };
  const empty = (deviceId: string, day: string, dwell: number | null) => ({
    deviceId,
    periodStart: `${day}T00:00:00Z`,
    totalImpressions: 0,
    uniqueVisitors: 0,
    avgDwellTime: dwell,
    maleCount: 0,
    femaleCount: 0,
    unknownGenderCount: 0,
    ...ages,
  });
  test('demographics per device and day, sensor spellings mapped, dwell time on request', async () => {
    const rows = await data(Q, { s: '2026-03-29', e: '2026-03-31', dw: true });
    expect(rows).toEqual([
      {
        ...empty('d1', '2026-03-29', 5),
        totalImpressions: 4,
        uniqueVisitors: 3,
        maleCount: 2,
        femaleCount: 1,
        unknownGenderCount: 1,
        age18To24: 2,
        age25To34: 1,
      },
      empty('d1', '2026-03-30', 0),
      empty('d1', '2026-03-31', 0),
      empty('d2', '2026-03-29', 0),
      empty('d2', '2026-03-30', 0),
      { ...empty('d2', '2026-03-31', 10), totalImpressions: 1, femaleCount: 1, ageOver74: 1 },
    ]);
    const noDwell = await data<{ avgDwellTime: number | null }[]>(Q, { s: '2026-03-29', e: '2026-03-31' });
    expect(noDwell.every((r) => r.avgDwellTime === null)).toBe(true);
  });
  test('impressions with enums, filtered by gender and age range', async () => {
    const rows = await data<{ gender: string; ageRange: string | null; visitorId: string | null }[]>(
      'query($g: [AnalyticsGender!], $a: [AnalyticsAgeRange!]) { impressions(startDate: "2026-03-29", endDate: "2026-03-31", gender: $g, ageRange: $a) { gender ageRange visitorId } }',
    );
    expect(rows.map((r) => [r.gender, r.ageRange, r.visitorId])).toEqual([
      ['FEMALE', 'AGE25TO34', 'v1'],
      ['MALE', 'AGE18TO24', 'v2'],
      ['MALE', 'AGE18TO24', 'v1'],
      ['UNKNOWN', null, 'v3'],
      ['FEMALE', 'AGEOVER74', null],
    ]);
    const male = await data<unknown[]>('{ impressions(startDate: "2026-03-29", endDate: "2026-03-31", gender: [MALE]) { id } }');
    expect(male).toHaveLength(2);
    const over74 = await data<unknown[]>('{ impressions(startDate: "2026-03-29", endDate: "2026-03-31", ageRange: [AGEOVER74, UNDER18]) { id } }');
    expect(over74).toHaveLength(1);
  });
  test('heat map: weights per rounded coordinate, heaviest first', async () => {
    expect(await data('{ heatMapData(startDate: "2026-03-29", endDate: "2026-03-31") { latitude longitude weight } }')).toEqual([
      { latitude: 52.52, longitude: 13.405, weight: 2 },
      { latitude: 48.1, longitude: 11.6, weight: 1 },
    ]);
    expect(await data('{ heatMapData(startDate: "2026-03-29", endDate: "2026-03-31", precision: 0) { latitude longitude weight } }')).toEqual([
      { latitude: 53, longitude: 13, weight: 2 },
      { latitude: 48, longitude: 12, weight: 1 },
    ]);
  });
});

describe('opportunity to see', () => {
  test('impressions during plays, per file and per device and file', async () => {
    const media = await data(
      '{ mediaImpressions(startDate: "2026-03-28", endDate: "2026-03-31") { fileId fileName totalPlays playsWithAudience totalImpressions impressionsPerPlay otsPercentage } }',
    );
    expect(media).toEqual([
      { fileId: 'f2', fileName: 'Deleted.mp4', totalPlays: 2, playsWithAudience: 2, totalImpressions: 4, impressionsPerPlay: 2, otsPercentage: 100 },
      { fileId: 'f1', fileName: 'f1.mp4', totalPlays: 3, playsWithAudience: 0, totalImpressions: 0, impressionsPerPlay: 0, otsPercentage: 0 },
    ]);
    const both = await data<{ deviceId: string; fileId: string; totalPlays: number; playsWithAudience: number; totalImpressions: number }[]>(
      '{ deviceMediaImpressions(startDate: "2026-03-28", endDate: "2026-03-31") { deviceId fileId totalPlays playsWithAudience totalImpressions } }',
    );
    expect(both.map((r) => [r.deviceId, r.fileId, r.totalPlays, r.playsWithAudience, r.totalImpressions])).toEqual([
      ['d1', 'f2', 1, 1, 3],
      ['d1', 'f1', 2, 0, 0],
      ['d2', 'f2', 1, 1, 1],
      ['d2', 'f1', 1, 0, 0],
    ]);
  });
});

describe('events', () => {
  test('event logs, filtered by name', async () => {
    const rows = await data<{ id: string }[]>(
      '{ eventLogs(startDate: "2026-03-29", endDate: "2026-03-29", eventName: ["menu"]) { id eventName sessionId properties } }',
    );
    expect(rows.map((r) => r.id)).toEqual(['e2', 'e4', 'e9']);
    const [e10] = await data<unknown[]>(
      '{ eventLogs(startDate: "2026-03-29T12:00:00Z", endDate: "2026-03-29T12:00:00Z") { id timestamp deviceId sessionId eventName properties latitude longitude } }',
    );
    expect(e10).toEqual({
      id: 'e10',
      timestamp: '2026-03-29T12:00:00Z',
      deviceId: 'd1',
      sessionId: null,
      eventName: 'alert',
      properties: '{"k":1}',
      latitude: 52.5,
      longitude: 13.4,
    });
  });
  test('event metrics per hour, and per event name', async () => {
    const Q = `query($g: Boolean) { eventMetrics(startDate: "2026-03-29T09:00:00Z", endDate: "2026-03-29T12:59:59Z", interval: HOUR, groupByEvent: $g) {
      eventName periodStart periodEnd totalEvents uniqueSessions } }`;
    const all = await data<{ eventName: string | null; periodStart: string; totalEvents: number; uniqueSessions: number }[]>(Q);
    expect(all.map((r) => [r.eventName, r.periodStart, r.totalEvents, r.uniqueSessions])).toEqual([
      [null, '2026-03-29T09:00:00Z', 5, 1],
      [null, '2026-03-29T10:00:00Z', 2, 1],
      [null, '2026-03-29T11:00:00Z', 2, 1],
      [null, '2026-03-29T12:00:00Z', 1, 0],
    ]);
    const byName = await data<{ eventName: string; totalEvents: number }[]>(Q, { g: true });
    expect(byName).toHaveLength(16);
    expect(byName.filter((r) => r.eventName === 'home').map((r) => r.totalEvents)).toEqual([1, 1, 1, 0]);
    expect(byName.filter((r) => r.eventName === 'product').map((r) => r.totalEvents)).toEqual([2, 1, 0, 0]);
  });
  test('event flow: Sankey links between consecutive events of a session', async () => {
    expect(await data('{ eventFlow(startDate: "2026-03-29", endDate: "2026-03-29") { source target count } }')).toEqual([
      { source: 'home', target: 'menu', count: 2 },
      { source: 'menu', target: 'product', count: 2 },
      { source: 'home', target: 'product', count: 1 },
      { source: 'product', target: 'menu', count: 1 },
    ]);
  });
  test('event heat map', async () => {
    expect(await data('{ eventHeatMapData(startDate: "2026-03-29", endDate: "2026-03-29", precision: 1) { latitude longitude weight } }')).toEqual([
      { latitude: 52.5, longitude: 13.4, weight: 1 },
    ]);
  });
});

const ANALYTICS_QUERIES = Object.entries(QUERY_RULES)
  .filter(([, rule]) => rule === 'Analytics_View')
  .map(([name]) => name);
/** The smallest selection of every analytics query. */
const minimal = (name: string, s = '2026-03-01', e = '2026-03-31', extra = '') => `{ ${name}(startDate: "${s}", endDate: "${e}"${extra}) { __typename } }`;

test('refusals name the argument', async () => {
  expect(await refusal(minimal('playStatsByTime', '2026-01-01', '2026-03-01', ', interval: MINUTE'))).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'interval',
  });
  expect(await refusal(minimal('deviceMetrics', '2026-01-01', '2026-01-02', ', timeZone: "Mars/Olympus"'))).toMatchObject({
    code: 'BAD_USER_INPUT',
    field: 'timeZone',
  });
  expect(await refusal(minimal('heatMapData', '2026-01-01', '2026-01-02', ', precision: 7'))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'precision' });
  for (const name of ANALYTICS_QUERIES) {
    expect(await refusal(minimal(name, '2026-03-02', '2026-03-01'))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'endDate' });
    expect(await refusal(minimal(name, 'soon', '2026-03-01'))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'startDate' });
    expect(await refusal(minimal(name, '2026-03-01', '2026-03-02', ', limit: 10001'))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
  }
});

test('every analytics query needs Analytics_View and answers only the caller’s account', async () => {
  const without = POLICIES.filter((p) => p !== 'Analytics_View');
  for (const name of ANALYTICS_QUERIES) {
    const r = await run(minimal(name, '2026-01-01', '2026-12-31'), {}, principal('acc-a', without));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // acc-c has no data: every list is empty (series have no groups).
    const other = await run(minimal(name, '2026-03-28', '2026-03-31'), {}, principal('acc-c', ['Analytics_View']));
    expect(other.errors).toBeUndefined();
    const list = Object.values(other.data as Record<string, unknown[]>)[0]!;
    // Ungrouped series still have their periods, as zeros.
    if (name === 'playStatsByTime' || name === 'eventMetrics') expect(list).toHaveLength(4);
    else expect(list).toEqual([]);
  }
  const b = await data<{ totalPlays: number }[]>(
    '{ mediaPlayStats(startDate: "2026-03-01", endDate: "2026-03-31") { totalPlays totalDuration } }',
    {},
    principal('acc-b'),
  );
  expect(b).toEqual([{ totalPlays: 1, totalDuration: 99 }]);
});

describe('where and order on the log queries', () => {
  const ids = async (query: string) => (await data<{ id: string }[]>(query)).map((r) => r.id);
  test('eventLogs: operations, and/or, order with the default order after it', async () => {
    expect(await ids('{ eventLogs(startDate: "2026-03-29", endDate: "2026-03-29", where: { eventName: { startsWith: "pro" } }) { id } }')).toEqual([
      'e3',
      'e5',
      'e7',
    ]);
    expect(
      await ids(
        '{ eventLogs(startDate: "2026-03-29", endDate: "2026-03-29", where: { or: [{ sessionId: { eq: "s2" } }, { deviceId: { eq: "d2" } }] }, order: [{ eventName: DESC }]) { id } }',
      ),
    ).toEqual(['e7', 'e9', 'e6', 'e8']);
    expect(await ids('{ eventLogs(startDate: "2026-03-29", endDate: "2026-03-29", where: { sessionId: { eq: null } }) { id } }')).toEqual(['e10']);
    expect(
      await ids(
        '{ eventLogs(startDate: "2026-03-29", endDate: "2026-03-29", where: { timestamp: { gte: "2026-03-29T10:00:00Z", lt: "2026-03-29T11:00:00Z" }, id: { nin: ["e6"] } }) { id } }',
      ),
    ).toEqual(['e7']);
  });
  test('playLogs and pingLogs: numbers, text, order', async () => {
    expect(
      await ids(
        '{ playLogs(startDate: "2026-03-28", endDate: "2026-03-31", where: { duration: { gte: 30 }, fileName: { ncontains: "old" } }, order: [{ duration: DESC }]) { id } }',
      ),
    ).toEqual(
      (
        await data<{ id: string; duration: number }[]>(
          '{ playLogs(startDate: "2026-03-28", endDate: "2026-03-31", where: { duration: { in: [40, 60] } }) { id duration } }',
        )
      )
        .sort((a, b) => b.duration - a.duration)
        .map((r) => r.id),
    );
    const pings = await data<{ cpuUsage: number }[]>(
      '{ pingLogs(startDate: "2026-03-29", endDate: "2026-03-29", where: { cpuUsage: { ngt: 30 } }, order: [{ cpuUsage: ASC }]) { cpuUsage } }',
    );
    expect(pings.map((p) => p.cpuUsage)).toEqual([10, 20, 30]);
  });
  test('bad filters are refused naming the field', async () => {
    expect(await refusal('{ playLogs(startDate: "2026-03-28", endDate: "2026-03-31", where: { timestamp: { gt: "yesterday" } }) { id } }')).toMatchObject({
      field: 'where.timestamp',
    });
    expect(await refusal('{ eventLogs(startDate: "2026-03-28", endDate: "2026-03-31", where: { eventName: { gt: "a" } }) { id } }')).toBeDefined();
  });
});
