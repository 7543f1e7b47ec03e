/** Heat map reads over the impressions or event_logs table: rows with coordinates, counted per rounded coordinate. */
import type { AnalyticsStore } from '@pylon/kit';
import type { AnalyticsQuery } from '../../domain/analytics-query.js';
import type { ListArgs } from '../../domain/list-filter.js';
import type { HeatMapPoint } from '../../shared/resolvers.generated.js';
import { limitClause, scope } from '../../shared/scope.sql.js';
import { listSql, numberColumns } from '../../shared/where.sql.js';

export const PRECISION = { default: 3, max: 6 } as const;

/** Rows of `table` with coordinates, counted per rounded coordinate, heaviest first. */
const HEAT_FIELDS = numberColumns({ latitude: 'lat', longitude: 'lon', weight: 'toFloat64(w)' });

export async function selectHeatMap(
  store: AnalyticsStore,
  table: 'impressions' | 'event_logs',
  q: AnalyticsQuery,
  precision: number,
  list: ListArgs = {},
): Promise<HeatMapPoint[]> {
  const cols = table === 'impressions' ? { device: 'device_id', file: 'file_id' } : { device: 'device_id', event: 'event_name' };
  const { where, params } = scope(q, cols);
  if (!Number.isInteger(precision) || precision < 0 || precision > PRECISION.max) throw new Error(`heat map precision out of range: ${precision}`);
  const { sql, params: listParams } = listSql(
    `SELECT round(assumeNotNull(latitude), ${precision}) AS lat, round(assumeNotNull(longitude), ${precision}) AS lon, count() AS w
FROM ${table} FINAL
WHERE ${where} AND latitude IS NOT NULL AND longitude IS NOT NULL
GROUP BY lat, lon`,
    HEAT_FIELDS,
    list,
    'w DESC, lat, lon',
    limitClause(q.limit),
  );
  const rows = await store.query<{ lat: number; lon: number; w: number }>(sql, { ...params, ...listParams });
  return rows.map((r) => ({ latitude: Number(r.lat), longitude: Number(r.lon), weight: Number(r.w) }));
}
