/**
 * Play logs' details (migration 007): the UTC end, the status, the player's clock offset and the
 * template zone are listed by playLogs (and filterable); rows written without them read as
 * completed plays with nulls. Only completed plays count: play statistics (raw and every rollup),
 * opportunity-to-see and the play reports leave skipped and failed attempts out.
 */
import { POLICIES, type AnalyticsStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { createAnalyticsSubgraph } from '../src/app.js';
import { bucketsOf } from '../src/domain/buckets.js';
import { selectPlayStatsByTime } from '../src/features/play-stats/play-stats.queries.js';

let store: AnalyticsStore;
let sg: ReturnType<typeof createAnalyticsSubgraph>;
const principal = testPrincipal('acc-a', POLICIES);
const run = subgraphRunner(() => sg, principal);

const base = { account_id: 'acc-a', device_id: 'd1', file_id: 'f1', file_name: 'Menu.png', type: 'image', playlist_id: 'p1', schedule_id: 's1' };

beforeAll(async () => {
  store = await createScratchChdbStore('pylon-analytics-status-');
  await store.migrate();
  sg = createAnalyticsSubgraph({ analytics: store, tokens: testTokens });
  await store.insert('play_logs', [
    // Written before the details existed: no end, status, offset or zone.
    { ...base, id: 'old', timestamp: '2026-03-05T10:00:00.000Z', duration: 10 },
    {
      ...base,
      id: 'done',
      timestamp: '2026-03-05T10:00:10.000Z',
      end_timestamp: '2026-03-05T10:00:20.400Z',
      duration: 10.4,
      status: 'completed',
      clock_offset_ms: -1250,
      zone_id: 'm-left',
    },
    {
      ...base,
      id: 'skip',
      timestamp: '2026-03-05T10:00:21.000Z',
      end_timestamp: '2026-03-05T10:00:21.000Z',
      duration: 0,
      status: 'skipped',
      zone_id: 'm-left',
    },
    {
      ...base,
      id: 'fail',
      timestamp: '2026-03-05T10:00:30.000Z',
      end_timestamp: '2026-03-05T10:00:33.000Z',
      duration: 3,
      status: 'failed',
      clock_offset_ms: 7,
    },
  ]);
});
afterAll(() => store?.close());

const LOGS = `query($w: PlayLogFilterInput) { playLogs(startDate: "2026-03-05", endDate: "2026-03-05", where: $w) {
  id timestamp duration endTimestamp status clockOffsetMs zoneId } }`;

test('playLogs lists every attempt with its end, status, clock offset and zone', async () => {
  const r = await run(LOGS, {});
  expect(r.errors).toBeUndefined();
  expect((r.data as { playLogs: unknown[] }).playLogs).toEqual([
    { id: 'old', timestamp: '2026-03-05T10:00:00Z', duration: 10, endTimestamp: null, status: 'completed', clockOffsetMs: null, zoneId: null },
    {
      id: 'done',
      timestamp: '2026-03-05T10:00:10Z',
      duration: 10.4,
      endTimestamp: '2026-03-05T10:00:20Z',
      status: 'completed',
      clockOffsetMs: -1250,
      zoneId: 'm-left',
    },
    {
      id: 'skip',
      timestamp: '2026-03-05T10:00:21Z',
      duration: 0,
      endTimestamp: '2026-03-05T10:00:21Z',
      status: 'skipped',
      clockOffsetMs: null,
      zoneId: 'm-left',
    },
    { id: 'fail', timestamp: '2026-03-05T10:00:30Z', duration: 3, endTimestamp: '2026-03-05T10:00:33Z', status: 'failed', clockOffsetMs: 7, zoneId: null },
  ]);
  const ids = async (w: unknown) => ((await run(LOGS, { w })).data as { playLogs: { id: string }[] }).playLogs.map((p) => p.id);
  expect(await ids({ status: { neq: 'completed' } })).toEqual(['skip', 'fail']);
  expect(await ids({ zoneId: { eq: 'm-left' } })).toEqual(['done', 'skip']);
});

test('only completed plays count in play statistics, raw and rolled up', async () => {
  const r = await run(
    `{ mediaPlayStats(startDate: "2026-03-05", endDate: "2026-03-05") { fileId totalPlays totalDuration }
       devicePlayStats(startDate: "2026-03-05", endDate: "2026-03-05") { deviceId totalPlays } }`,
    {},
  );
  expect(r.errors).toBeUndefined();
  expect(r.data).toEqual({ mediaPlayStats: [{ fileId: 'f1', totalPlays: 2, totalDuration: 20.4 }], devicePlayStats: [{ deviceId: 'd1', totalPlays: 2 }] });
  const range = { from: new Date('2026-03-05T00:00:00Z'), to: new Date('2026-03-06T00:00:00Z') };
  const q = { accountId: 'acc-a', range, deviceIds: [], fileIds: [], eventNames: [], limit: 100, interval: 'DAY' as const, timeZone: 'UTC' };
  const series = { ...q, buckets: bucketsOf(range, 'DAY', 'UTC') };
  for (const source of ['RAW', 'MINUTE', 'HOUR', 'DAY'] as const) {
    const [day] = await selectPlayStatsByTime(store, series, false, source);
    expect([source, day?.totalPlays, day?.totalDuration]).toEqual([source, 2, 20.4]);
  }
});
