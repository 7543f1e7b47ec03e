/**
 * Opportunity to see (OTS): an impression detected on a device while a play was running there
 * (from the play's start for its duration) is an opportunity to see that play. Each impression is
 * matched to the latest play started on its device at or before it (ASOF JOIN), so overlapping
 * plays on one device (zones) credit the most recent one.
 */
import type { AnalyticsStore } from '@pylon/kit';
import type { AnalyticsQuery } from '../../domain/analytics-query.js';
import type { DeviceMediaImpression, MediaImpression } from '../../shared/resolvers.generated.js';
import type { ListArgs } from '../../domain/list-filter.js';
import { limitClause, scope } from '../../shared/scope.sql.js';
import { FILE_FIELDS, listSql, namedColumns, numberColumns, type ColumnMap } from '../../shared/where.sql.js';

/** Plays can run past the end of the range; impressions this long after it still count for them. */
const PLAY_SPILL_SECONDS = 86_400;

interface Row {
  device_id: string;
  file_id: string;
  name: string;
  plays: number;
  seen: number;
  imps: number;
}

/** where / order fields over the output columns below (the figures as `figures` computes them). */
const MEDIA_FIELDS: ColumnMap = {
  ...FILE_FIELDS,
  ...numberColumns({
    totalPlays: 'toFloat64(plays)',
    playsWithAudience: 'toFloat64(seen)',
    totalImpressions: 'toFloat64(imps)',
    impressionsPerPlay: 'if(plays = 0, 0, imps / plays)',
    otsPercentage: 'if(plays = 0, 0, 100 * seen / plays)',
  }),
};
const DEVICE_MEDIA_FIELDS: ColumnMap = { ...namedColumns('string', ['deviceId']), ...MEDIA_FIELDS };

async function selectOts(store: AnalyticsStore, q: AnalyticsQuery, byDevice: boolean, list: ListArgs): Promise<Row[]> {
  const plays = scope(q, { device: 'device_id', file: 'file_id', status: 'status' });
  const imps = scope({ ...q, fileIds: [] }, { device: 'device_id', time: 'timestamp' });
  const group = byDevice ? 'pl.device_id, pl.file_id' : 'pl.file_id';
  const { sql, params } = listSql(
    `WITH plays AS (
  SELECT id, device_id, file_id, file_name, timestamp, duration
  FROM play_logs FINAL
  WHERE ${plays.where} AND file_id != ''
),
hits AS (
  SELECT pl.id AS play_id, count() AS n
  FROM (
    SELECT device_id, timestamp FROM impressions FINAL
    WHERE ${imps.where.replace("parseDateTime64BestEffort({to:String}, 3, 'UTC')", "parseDateTime64BestEffort({to:String}, 3, 'UTC') + toIntervalSecond({spill:UInt32})")}
  ) AS i
  ASOF INNER JOIN plays AS pl ON i.device_id = pl.device_id AND i.timestamp >= pl.timestamp
  WHERE i.timestamp < pl.timestamp + toIntervalMillisecond(toInt64(pl.duration * 1000))
  GROUP BY play_id
)
SELECT ${byDevice ? 'pl.device_id' : "''"} AS device_id, pl.file_id AS file_id, argMax(pl.file_name, (pl.timestamp, pl.file_name)) AS name,
  count() AS plays, countIf(h.n > 0) AS seen, sum(h.n) AS imps
FROM plays AS pl LEFT JOIN hits AS h ON pl.id = h.play_id
GROUP BY ${group}`,
    byDevice ? DEVICE_MEDIA_FIELDS : MEDIA_FIELDS,
    list,
    `${byDevice ? 'device_id, ' : ''}imps DESC, plays DESC, file_id`,
    limitClause(q.limit),
  );
  return store.query<Row>(sql, { ...plays.params, ...params, spill: PLAY_SPILL_SECONDS });
}

const figures = (r: Row) => {
  const plays = Number(r.plays),
    seen = Number(r.seen),
    imps = Number(r.imps);
  return {
    totalPlays: plays,
    playsWithAudience: seen,
    totalImpressions: imps,
    impressionsPerPlay: plays ? imps / plays : 0,
    otsPercentage: plays ? (100 * seen) / plays : 0,
  };
};

export async function selectMediaImpressions(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<MediaImpression[]> {
  return (await selectOts(store, q, false, list)).map((r) => ({ fileId: r.file_id, fileName: r.name || null, ...figures(r) }));
}

export async function selectDeviceMediaImpressions(store: AnalyticsStore, q: AnalyticsQuery, list: ListArgs = {}): Promise<DeviceMediaImpression[]> {
  return (await selectOts(store, q, true, list)).map((r) => ({ deviceId: r.device_id, fileId: r.file_id, fileName: r.name || null, ...figures(r) }));
}
