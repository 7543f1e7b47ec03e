/**
 * where / order on the zero-filled series (eventMetrics, deviceMetrics, audienceMetrics,
 * playStatsByTime): applied in memory to the records after the fill, so an empty period is a record
 * like any other (`totalPlays: { eq: 0 }` finds them), then the limit. The grammar, limits and
 * messages are domain/list-filter.ts's, the same the SQL filters use. Without where / order the
 * read is the plain one (its limit applied while filling: no extra work).
 */
import { badInput } from '@pylon/kit';
import type { SeriesQuery } from '../domain/analytics-query.js';
import { filterAndSort, parseList, type FieldKinds, type ListArgs } from '../domain/list-filter.js';

/** At most this many records (groups x periods) are filtered in memory; a larger series is refused. */
export const MAX_FILTERED_SERIES = 200_000;

const num = { kind: 'number' } as const;
const str = { kind: 'string' } as const;
const date = { kind: 'date' } as const;
const PERIOD = { periodStart: date, periodEnd: date };

// The records' own fields only: deviceName is resolved through the devices subgraph, not here.
export const EVENT_METRIC_FIELDS: FieldKinds = { eventName: str, ...PERIOD, totalEvents: num, uniqueSessions: num };
export const DEVICE_METRIC_FIELDS: FieldKinds = {
  deviceId: str,
  ...PERIOD,
  avgCpuUsage: num,
  maxCpuUsage: num,
  avgMemoryUsage: num,
  maxMemoryUsage: num,
  uptimePercentage: num,
  alertCount: num,
};
export const AUDIENCE_METRIC_FIELDS: FieldKinds = {
  deviceId: str,
  ...PERIOD,
  totalImpressions: num,
  uniqueVisitors: num,
  avgDwellTime: num,
  maleCount: num,
  femaleCount: num,
  unknownGenderCount: num,
  ageUnder18: num,
  age18To24: num,
  age25To34: num,
  age35To44: num,
  age45To54: num,
  age55To64: num,
  age65To74: num,
  ageOver74: num,
};
export const PLAY_STAT_BY_TIME_FIELDS: FieldKinds = { fileId: str, fileName: str, ...PERIOD, totalPlays: num, totalDuration: num, avgDuration: num };

/** `read`'s records (for `q`) filtered and sorted by `list`, then cut at the query's limit. */
export async function filteredSeries<T extends object>(
  q: SeriesQuery,
  list: ListArgs,
  fields: FieldKinds,
  read: (q: SeriesQuery) => Promise<T[]>,
): Promise<T[]> {
  // Bad inputs are refused before anything is read.
  const parsed = parseList(list, fields);
  if (!parsed) return read(q);
  const all = await read({ ...q, limit: MAX_FILTERED_SERIES + 1 });
  if (all.length > MAX_FILTERED_SERIES)
    throw badInput(
      list.where !== undefined && list.where !== null ? 'where' : 'order',
      `where / order apply to at most ${MAX_FILTERED_SERIES} records (periods x groups); choose a longer interval, a shorter range or fewer devices/files`,
    );
  return filterAndSort(all, parsed, fields, q.limit);
}
