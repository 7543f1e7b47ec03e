/**
 * Play statistics from play_logs (kit/migrations/analytics/001_telemetry.sql): per file, per
 * device, per device and file, and per period. A file's name is the one it had at its latest play
 * in the range, so statistics keep naming files that were deleted since.
 */
import type { AnalyticsStore, SqlParams } from '@pylon/kit';
import type { AnalyticsQuery, SeriesQuery } from '../../domain/analytics-query.js';
import { grainsOf, planSource, planSplit, ROLLUPS, type Source, type Split } from '../../domain/rollup-plan.js';
import { fillSeries, groupsOf } from '../../domain/series.js';
import type { DeviceMediaPlayStat, DevicePlayStat, MediaPlayStat, PlayStatByTime } from '../../shared/resolvers.generated.js';
import type { ListArgs } from '../../domain/list-filter.js';
import { isoOf, isoSql, limitClause, periodExpr, scope } from '../../shared/scope.sql.js';
import { FILE_FIELDS, listSql, namedColumns, numberColumns, type ColumnMap } from '../../shared/where.sql.js';

// Completed plays only: what the rollups hold too (migration 007).
const PLAY_COLUMNS = { device: 'device_id', file: 'file_id', status: 'status' };
const ROLLUP_COLUMNS = { device: 'device_id', file: 'file_id', time: 'period' };

interface TotalsRow {
  plays: number;
  dur: number;
  first: string;
  last: string;
}
const TOTALS = `count() AS plays, sum(duration) AS dur, ${isoSql('min(timestamp)')} AS first, ${isoSql('max(timestamp)')} AS last`;
const totals = (r: TotalsRow) => ({
  totalPlays: Number(r.plays),
  totalDuration: Number(r.dur),
  avgDuration: Number(r.plays) ? Number(r.dur) / Number(r.plays) : 0,
  firstPlayed: r.first,
  lastPlayed: r.last,
});

/** where / order fields over TOTALS' output columns (integers as Float64: comparable with the bound numbers). */
const TOTALS_FIELDS: ColumnMap = {
  ...numberColumns({ totalPlays: 'toFloat64(plays)', totalDuration: 'toFloat64(dur)', avgDuration: 'if(plays = 0, 0, dur / plays)' }),
  firstPlayed: { column: "parseDateTime64BestEffort(first, 3, 'UTC')", kind: 'date' },
  lastPlayed: { column: "parseDateTime64BestEffort(last, 3, 'UTC')", kind: 'date' },
};
const DEVICE_ID = namedColumns('string', ['deviceId']);
const MEDIA_FIELDS: ColumnMap = { ...FILE_FIELDS, ...numberColumns({ deviceCount: 'toFloat64(devices)' }), ...TOTALS_FIELDS };
const DEVICE_FIELDS: ColumnMap = { ...DEVICE_ID, ...numberColumns({ fileCount: 'toFloat64(files)' }), ...TOTALS_FIELDS };
const DEVICE_MEDIA_FIELDS: ColumnMap = { ...DEVICE_ID, ...FILE_FIELDS, ...TOTALS_FIELDS };

export async function selectMediaPlayStats(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<MediaPlayStat[]> {
  const { where, params } = scope(q, PLAY_COLUMNS);
  const { sql, params: listParams } = listSql(
    `SELECT file_id, argMax(file_name, (timestamp, file_name)) AS name, uniqExact(device_id) AS devices, ${TOTALS}
FROM play_logs FINAL
WHERE ${where} AND file_id != ''
GROUP BY file_id`,
    MEDIA_FIELDS,
    list,
    'plays DESC, file_id',
    limitClause(q.limit),
  );
  const rows = await store.query<TotalsRow & { file_id: string; name: string; devices: number }>(sql, { ...params, ...listParams });
  return rows.map((r) => ({ fileId: r.file_id, fileName: r.name || null, deviceCount: Number(r.devices), ...totals(r) }));
}

export async function selectDevicePlayStats(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<DevicePlayStat[]> {
  const { where, params } = scope(q, PLAY_COLUMNS);
  const { sql, params: listParams } = listSql(
    `SELECT device_id, uniqExactIf(file_id, file_id != '') AS files, ${TOTALS}
FROM play_logs FINAL
WHERE ${where}
GROUP BY device_id`,
    DEVICE_FIELDS,
    list,
    'plays DESC, device_id',
    limitClause(q.limit),
  );
  const rows = await store.query<TotalsRow & { device_id: string; files: number }>(sql, { ...params, ...listParams });
  return rows.map((r) => ({ deviceId: r.device_id, fileCount: Number(r.files), ...totals(r) }));
}

export async function selectDeviceMediaPlayStats(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<DeviceMediaPlayStat[]> {
  const { where, params } = scope(q, PLAY_COLUMNS);
  const { sql, params: listParams } = listSql(
    `SELECT device_id, file_id, argMax(file_name, (timestamp, file_name)) AS name, ${TOTALS}
FROM play_logs FINAL
WHERE ${where} AND file_id != ''
GROUP BY device_id, file_id`,
    DEVICE_MEDIA_FIELDS,
    list,
    'device_id, plays DESC, file_id',
    limitClause(q.limit),
  );
  const rows = await store.query<TotalsRow & { device_id: string; file_id: string; name: string }>(sql, { ...params, ...listParams });
  return rows.map((r) => ({ deviceId: r.device_id, fileId: r.file_id, fileName: r.name || null, ...totals(r) }));
}

interface PeriodRow {
  p: number;
  fid: string;
  name: string;
  plays: number;
  dur: number;
}

/** One query's text and parameters. */
type Sql = [string, SqlParams];

/** playStatsByTime from one source. */
function periodsSql(q: SeriesQuery, groupByFile: boolean, source: Source): Sql {
  const raw = source === 'RAW';
  const { where, params } = scope(q, raw ? PLAY_COLUMNS : ROLLUP_COLUMNS);
  // The file is answered as `fid`, never aliased `file_id`: ClickHouse resolves an alias before a
  // column of the same name, so `'' AS file_id` turned WHERE's file filter into has(files, '') and a
  // fileId filter counted nothing (issue 35).
  const file = !groupByFile
    ? "'' AS fid, '' AS name"
    : raw
      ? 'file_id AS fid, argMax(file_name, (timestamp, file_name)) AS name'
      : 'file_id AS fid, argMaxMerge(file_name) AS name';
  return [
    raw
      ? `SELECT ${periodExpr(q.interval, 'timestamp')} AS p, ${file}, count() AS plays, sum(duration) AS dur
FROM play_logs FINAL
WHERE ${where}
GROUP BY p${groupByFile ? ', file_id' : ''}`
      : `SELECT ${periodExpr(q.interval, 'period')} AS p, ${file}, sum(plays) AS plays, sum(duration) AS dur
FROM ${ROLLUPS.plays[source]}
WHERE ${where}
GROUP BY p${groupByFile ? ', file_id' : ''}`,
    { ...params, tz: q.timeZone },
  ];
}

/**
 * playStatsByTime from a rollup on [split.from, split.to) and the raw play logs outside it, summed
 * per period (the name as argMax states of both parts, merged).
 */
function splitPeriodsSql(q: SeriesQuery, groupByFile: boolean, split: Split): Sql {
  const raw = scope(q, PLAY_COLUMNS);
  const rollup = scope(q, ROLLUP_COLUMNS); // the same parameters, on the rollup's columns
  const inside = "fromUnixTimestamp64Milli({splitFrom:Int64}, 'UTC')";
  const after = "fromUnixTimestamp64Milli({splitTo:Int64}, 'UTC')";
  const by = groupByFile ? ', file_id' : '';
  const name = (state: string) => (groupByFile ? `, ${state} AS name` : '');
  return [
    `SELECT p, ${groupByFile ? 'file_id AS fid, argMaxMerge(name) AS name' : "'' AS fid, '' AS name"}, sum(plays) AS plays, sum(dur) AS dur
FROM (
  SELECT ${periodExpr(q.interval, 'period')} AS p${by}${name('argMaxMergeState(file_name)')}, sum(plays) AS plays, sum(duration) AS dur
  FROM ${ROLLUPS.plays[split.grain]}
  WHERE ${rollup.where}
    AND period >= ${inside} AND period < ${after}
  GROUP BY p${by}
  UNION ALL
  SELECT ${periodExpr(q.interval, 'timestamp')} AS p${by}${name('argMaxState(file_name, (timestamp, file_name))')}, count() AS plays, sum(duration) AS dur
  FROM play_logs FINAL
  WHERE ${raw.where}
    AND (timestamp < ${inside} OR timestamp >= ${after})
  GROUP BY p${by}
)
GROUP BY p${by}`,
    { ...raw.params, ...rollup.params, splitFrom: split.from, splitTo: split.to, tz: q.timeZone },
  ];
}

/**
 * Plays per period (and per file with groupByFile); every period present, empty ones as zeros.
 * `source`: raw play logs or a rollup. Without it the planner chooses: a rollup when the range fits
 * one, else a rollup inside and the raw rows on the ragged ends (`planSplit`), else raw.
 */
export async function selectPlayStatsByTime(store: AnalyticsStore, q: SeriesQuery, groupByFile: boolean, source?: Source): Promise<PlayStatByTime[]> {
  const grains = grainsOf(ROLLUPS.plays);
  const chosen = source ?? planSource(q.range, q.buckets, grains);
  const split = source === undefined && chosen === 'RAW' ? planSplit(q.range, q.buckets, grains) : undefined;
  const rows = await store.query<PeriodRow>(...(split ? splitPeriodsSql(q, groupByFile, split) : periodsSql(q, groupByFile, chosen)));
  // The name of each file's latest period: the name it had last.
  const names = new Map([...rows].sort((a, b) => Number(a.p) - Number(b.p)).map((r) => [r.fid, r.name]));
  const groups = groupByFile ? groupsOf(rows, (r) => r.fid) : [''];
  const series = fillSeries(
    q.buckets,
    groups,
    rows,
    (r) => r.fid,
    (fileId, b, r): PlayStatByTime => {
      const plays = r ? Number(r.plays) : 0,
        dur = r ? Number(r.dur) : 0;
      return {
        fileId: groupByFile ? fileId : null,
        fileName: groupByFile ? names.get(fileId) || null : null,
        periodStart: isoOf(b.start),
        periodEnd: isoOf(b.end),
        totalPlays: plays,
        totalDuration: dur,
        avgDuration: plays ? dur / plays : 0,
      };
    },
    q.limit,
  );
  return series;
}
