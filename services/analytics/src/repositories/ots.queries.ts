/**
 * Opportunity to see (OTS): an impression detected on a device while a play was running there
 * (from the play's start for its duration) is an opportunity to see that play. Each impression is
 * matched to the latest play started on its device at or before it (ASOF JOIN), so overlapping
 * plays on one device (zones) credit the most recent one.
 */
import type { AnalyticsStore } from '@pylon/kit';
import type { AnalyticsQuery } from '../domain/analytics-query.js';
import type { DeviceMediaImpression, MediaImpression } from '../graphql/resolvers.generated.js';
import { limitClause, scope } from './sql/scope.sql.js';

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

async function selectOts(store: AnalyticsStore, q: AnalyticsQuery, byDevice: boolean): Promise<Row[]> {
  const plays = scope(q, { device: 'device_id', file: 'file_id', status: 'status' });
  const imps = scope({ ...q, fileIds: [] }, { device: 'device_id', time: 'timestamp' });
  const group = byDevice ? 'pl.device_id, pl.file_id' : 'pl.file_id';
  return store.query<Row>(
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
GROUP BY ${group}
ORDER BY ${byDevice ? 'device_id, ' : ''}imps DESC, plays DESC, file_id
${limitClause(q.limit)}`,
    { ...plays.params, spill: PLAY_SPILL_SECONDS },
  );
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

export async function selectMediaImpressions(store: AnalyticsStore, q: AnalyticsQuery): Promise<MediaImpression[]> {
  return (await selectOts(store, q, false)).map((r) => ({ fileId: r.file_id, fileName: r.name || null, ...figures(r) }));
}

export async function selectDeviceMediaImpressions(store: AnalyticsStore, q: AnalyticsQuery): Promise<DeviceMediaImpression[]> {
  return (await selectOts(store, q, true)).map((r) => ({ deviceId: r.device_id, fileId: r.file_id, fileName: r.name || null, ...figures(r) }));
}
