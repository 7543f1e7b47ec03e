/**
 * Raw reads collapse replayed rows with FINAL, which the stores run with
 * do_not_merge_across_partitions_select_final (kit analytics.shared.ts ANALYTICS_SETTINGS): FINAL
 * merges within a partition only, and reads a partition already merged into one part without
 * merging. Exact only when duplicates never straddle partitions, i.e. when every deduplicating
 * table partitions by columns of its sorting key: checked here over every table the migrations
 * create. Then known answers over duplicated ids in partitions of each state (several unmerged
 * parts, one merged part, one fresh part, duplicates inside one insert).
 */
import type { AnalyticsStore } from '@pylon/kit';
import { compactClosedPartitions } from '../src/workers/compaction.js';
import { ROLLUPS_OF } from '../src/workers/rollup-repair.js';
import type { SeriesQuery } from '../src/domain/analytics-query.js';
import { selectDeviceMetrics } from '../src/features/device-metrics/device-metrics.queries.js';
import { selectDevicePlayStats, selectPlayStatsByTime } from '../src/features/play-stats/play-stats.queries.js';
import { seriesQuery, withChdbStore } from './ingest.helpers.js';
import { pingRow, playRow } from './fixtures/telemetry-rows.js';

let store: AnalyticsStore;
withChdbStore('pylon-analytics-final-', (s) => (store = s));

test('every deduplicating table partitions by columns of its sorting key (duplicates share a partition)', async () => {
  const tables = await store.query<{ name: string }>(
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE 'Replacing%' ORDER BY name",
  );
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['play_logs', 'ping_logs', 'event_logs', 'impressions', 'audit_events']));
  const straddling = await store.query<{ table: string; name: string }>(
    `SELECT table, name FROM system.columns
WHERE database = currentDatabase() AND is_in_partition_key AND NOT is_in_sorting_key
  AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE 'Replacing%')`,
  );
  expect(straddling).toEqual([]);
});

const play = (id: string, timestamp: string, device = 'd1', duration = 10) =>
  playRow({ id, account_id: 'acc', device_id: device, file_id: 'f1', timestamp, duration });
const ping = (id: string, timestamp: string) =>
  pingRow({ id, account_id: 'acc', device_id: 'd1', timestamp, cpu_usage: 50, memory_usage: 10, disk_usage: 1, player_version: '' });

/** Account acc's plays over January to March 2026, by month (UTC). */
function firstQuarterByMonth(): SeriesQuery {
  const range = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') };
  return seriesQuery('acc', range, 'MONTH', { limit: 1000 });
}

test('plays and pings with duplicated ids count once in every partition state', async () => {
  // January: a batch and its replay (two unmerged parts).
  const jan = [play('a1', '2026-01-10T10:00:00Z'), play('a2', '2026-01-10T11:00:00Z', 'd2'), play('a3', '2026-01-31T23:59:59.999Z')];
  await store.insert('play_logs', jan);
  await store.insert('play_logs', jan);
  // February: a batch, its replay, then merged into one part (read without merging).
  const feb = [play('b1', '2026-02-01T00:00:00Z'), play('b2', '2026-02-14T12:00:00Z')];
  await store.insert('play_logs', feb);
  await store.insert('play_logs', feb);
  await store.exec('OPTIMIZE TABLE play_logs PARTITION 202602 FINAL');
  // March: one fresh part holding a duplicate inside its own insert, plus a replay of one row.
  await store.insert('play_logs', [play('c1', '2026-03-01T08:00:00Z'), play('c1', '2026-03-01T08:00:00Z'), play('c2', '2026-03-31T10:00:00Z')]);
  await store.insert('play_logs', [play('c2', '2026-03-31T10:00:00Z')]);
  const parts = await store.query<{ partition: string; parts: number; level: number }>(
    "SELECT partition, count() AS parts, max(level) AS level FROM system.parts WHERE active AND table = 'play_logs' AND database = currentDatabase() GROUP BY partition ORDER BY partition",
  );
  expect(parts.map((p) => [p.partition, Number(p.parts)])).toEqual([
    ['202601', 2],
    ['202602', 1],
    ['202603', 2],
  ]);

  const q = firstQuarterByMonth();
  const months = await selectPlayStatsByTime(store, q, false, 'RAW');
  expect(months.map((m) => [m.periodStart, m.totalPlays, m.totalDuration])).toEqual([
    ['2026-01-01T00:00:00Z', 3, 30],
    ['2026-02-01T00:00:00Z', 2, 20],
    ['2026-03-01T00:00:00Z', 2, 20],
  ]);
  const devices = await selectDevicePlayStats(store, q);
  expect(devices.map((d) => [d.deviceId, d.totalPlays])).toEqual([
    ['d1', 6],
    ['d2', 1],
  ]);

  // Pings: the same for uptime and averages (a replayed ping must not weigh twice).
  const pings = [ping('g1', '2026-01-05T10:00:00Z'), ping('g2', '2026-01-05T10:01:00Z')];
  await store.insert('ping_logs', pings);
  await store.insert('ping_logs', [{ ...pings[0]!, cpu_usage: 50 }]);
  const [day] = await selectDeviceMetrics(
    store,
    seriesQuery('acc', { from: new Date('2026-01-05T10:00:00Z'), to: new Date('2026-01-05T11:00:00Z') }, 'HOUR', { limit: 1000 }),
    'RAW',
  );
  expect(day).toMatchObject({ avgCpuUsage: 50, uptimePercentage: (100 * 2) / 60 });
});

/** Whether FINAL over [from, to) still merges parts at read time (a ReplacingSorted step in its pipeline). */
async function finalMerges(from: string, to: string): Promise<boolean> {
  const lines = await store.query<{ explain: string }>(
    `EXPLAIN PIPELINE SELECT count() FROM play_logs FINAL WHERE account_id = 'acc' AND timestamp >= '${from}' AND timestamp < '${to}'`,
  );
  return lines.some((l) => /ReplacingSorted/.test(l.explain));
}

const raw = (merged: string) => !merged.includes('_rollup_') && !merged.includes('_visitor');
/** Closed months (before 2026-03) of the raw tables and every rollup that are still several parts or one unmerged part. */
async function unmergedClosedMonths(): Promise<string[]> {
  const rows = await store.query<{ t: string }>(
    `SELECT concat(table, ':', partition_id) AS t FROM system.parts
WHERE database = currentDatabase() AND active AND has({tables:Array(String)}, table) AND toUInt32OrZero(partition_id) BETWEEN 1 AND 202602
GROUP BY table, partition_id HAVING count() > 1 OR max(level) = 0`,
    { tables: ['play_logs', 'ping_logs', ...Object.values(ROLLUPS_OF).flatMap((specs) => specs.map((s) => s.rollup))] },
  );
  return rows.map((r) => r.t);
}

test('closed months of the raw tables and their rollups are compacted into one part each; FINAL then reads them without merging; answers unchanged', async () => {
  const q = firstQuarterByMonth();
  const before = await selectPlayStatsByTime(store, q, false, 'RAW');
  expect(await finalMerges('2026-01-01', '2026-02-01')).toBe(true);
  expect(await finalMerges('2026-02-01', '2026-03-01')).toBe(false); // merged above by OPTIMIZE

  // On 2026-03-15 January and February are closed; March is open and keeps its parts.
  const rollupsBefore = await selectPlayStatsByTime(store, q, false, 'DAY');
  const merged = await compactClosedPartitions(store, new Date('2026-03-15T00:00:00Z'));
  expect(merged.filter(raw)).toEqual(['ping_logs:202601', 'play_logs:202601']);
  // The rollups' closed months too (which of them are still several parts is the engine's own merging).
  expect(merged).toEqual(expect.arrayContaining(['play_rollup_minute:202601', 'ping_rollup_hour:202601']));
  expect(await unmergedClosedMonths()).toEqual([]);
  expect(await selectPlayStatsByTime(store, q, false, 'DAY')).toEqual(rollupsBefore);
  const parts = await store.query<{ partition: string; parts: number }>(
    "SELECT partition, count() AS parts FROM system.parts WHERE active AND table = 'play_logs' AND database = currentDatabase() GROUP BY partition ORDER BY partition",
  );
  expect(parts.map((p) => [p.partition, Number(p.parts)])).toEqual([
    ['202601', 1],
    ['202602', 1],
    ['202603', 2],
  ]);
  expect(await finalMerges('2026-01-01', '2026-03-01')).toBe(false);
  expect(await finalMerges('2026-03-01', '2026-04-01')).toBe(true);
  expect(await selectPlayStatsByTime(store, q, false, 'RAW')).toEqual(before);
  // Nothing left to do; a late row for January makes a new part, merged by the next run.
  expect(await compactClosedPartitions(store, new Date('2026-03-15T00:00:00Z'))).toEqual([]);
  await store.insert('play_logs', [play('a1', '2026-01-10T10:00:00Z'), play('a9', '2026-01-20T10:00:00Z')]);
  expect(await finalMerges('2026-01-01', '2026-02-01')).toBe(true);
  expect((await compactClosedPartitions(store, new Date('2026-03-15T00:00:00Z'))).filter(raw)).toEqual(['play_logs:202601']);
  expect(await unmergedClosedMonths()).toEqual([]);
  expect((await selectPlayStatsByTime(store, q, false, 'RAW')).map((m) => m.totalPlays)).toEqual([4, 2, 2]);
});
