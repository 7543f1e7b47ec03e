/**
 * The analytics reads behind the GraphQL queries (and through them the REST and legacy facades):
 * arguments validated into a query on the caller's account, then one SQL read. `where` / `order`
 * filter and sort the records before the limit: in SQL for the grouped queries, in memory
 * (series-filter.ts) for the series, whose empty periods exist only after the fill.
 */
import { badInput, resolveLimit, type AnalyticsStore, type Principal } from '@pylon/kit';
import { PRECISION, selectAudienceMetrics, selectHeatMap, selectImpressions } from '../repositories/audience.queries.js';
import { selectDeviceMetrics } from '../repositories/device-metrics.queries.js';
import { selectEventFlow, selectEventLogs, selectEventMetrics } from '../repositories/event.queries.js';
import { selectDeviceMediaImpressions, selectMediaImpressions } from '../repositories/ots.queries.js';
import { selectDeviceMediaPlayStats, selectDevicePlayStats, selectMediaPlayStats, selectPlayStatsByTime } from '../repositories/play-stats.queries.js';
import type { AnalyticsQuery } from '../domain/analytics-query.js';
import type { ListArgs } from '../domain/list-filter.js';
import { toAnalyticsQuery, toSeriesQuery, type AnalyticsArgs, type SeriesArgs } from './analytics-args.js';
import { AUDIENCE_METRIC_FIELDS, DEVICE_METRIC_FIELDS, EVENT_METRIC_FIELDS, filteredSeries, PLAY_STAT_BY_TIME_FIELDS } from './series-filter.js';

type P = Principal;
type S = AnalyticsStore;
/** Arguments of a query with where / order. */
type A = AnalyticsArgs & ListArgs;
type SA = SeriesArgs & ListArgs;
const list = (a: ListArgs): ListArgs => ({ where: a.where, order: a.order });

export const readEventLogs = (s: S, p: P, a: A) => selectEventLogs(s, toAnalyticsQuery(p, a), list(a));
export const readEventMetrics = (s: S, p: P, a: SA & { groupByEvent?: boolean | null }) =>
  filteredSeries(toSeriesQuery(p, a), a, EVENT_METRIC_FIELDS, (q) => selectEventMetrics(s, q, a.groupByEvent ?? false));
export const readEventFlow = (s: S, p: P, a: A) => selectEventFlow(s, toAnalyticsQuery(p, a), list(a));

export function readImpressions(s: S, p: P, a: A & { gender?: readonly string[] | null; ageRange?: readonly string[] | null }) {
  if ((a.gender?.length ?? 0) > 10) throw badInput('gender', 'at most 10 values');
  if ((a.ageRange?.length ?? 0) > 10) throw badInput('ageRange', 'at most 10 values');
  return selectImpressions(s, toAnalyticsQuery(p, a), { genders: [...(a.gender ?? [])], ageRanges: [...(a.ageRange ?? [])] }, list(a));
}
/** Which of `ids` are the caller's devices (the devices subgraph's answer). */
export type OwnedDevices = (ids: readonly string[]) => Promise<ReadonlySet<string>>;

export interface SeriesReadOptions {
  /** Without it, a device of the filter shows only when it has data (none can be confirmed). */
  owned?: OwnedDevices;
  /** The clock (default: the current time). */
  now?: Date;
}

/**
 * The ids of the device filter that are the caller's devices: each gets its series, zeros without
 * data. Started before the series' SQL and awaited after it (the check decides only which empty
 * series to add; the SQL is scoped to the account either way); a failure then is the answer's, and
 * is not reported as unhandled while the SQL runs.
 */
function listedDevices(q: AnalyticsQuery, owned: OwnedDevices | undefined): Promise<string[]> {
  if (!owned || q.deviceIds.length === 0) return Promise.resolve([]);
  const listed = owned(q.deviceIds).then((mine) => q.deviceIds.filter((id) => mine.has(id)));
  listed.catch(() => undefined);
  return listed;
}

export async function readDeviceMetrics(s: S, p: P, a: SA, o: SeriesReadOptions = {}) {
  const q = toSeriesQuery(p, a);
  const devices = listedDevices(q, o.owned);
  return filteredSeries(q, a, DEVICE_METRIC_FIELDS, (r) => selectDeviceMetrics(s, r, undefined, { now: o.now, devices }));
}
export async function readAudienceMetrics(s: S, p: P, a: SA & { includeDwellTime?: boolean | null }, o: SeriesReadOptions = {}) {
  const q = toSeriesQuery(p, a);
  const devices = listedDevices(q, o.owned);
  return filteredSeries(q, a, AUDIENCE_METRIC_FIELDS, (r) => selectAudienceMetrics(s, r, a.includeDwellTime ?? false, undefined, { now: o.now, devices }));
}

export const readMediaPlayStats = (s: S, p: P, a: A) => selectMediaPlayStats(s, toAnalyticsQuery(p, a), list(a));
export const readDevicePlayStats = (s: S, p: P, a: A) => selectDevicePlayStats(s, toAnalyticsQuery(p, a), list(a));
export const readDeviceMediaPlayStats = (s: S, p: P, a: A) => selectDeviceMediaPlayStats(s, toAnalyticsQuery(p, a), list(a));
export const readPlayStatsByTime = (s: S, p: P, a: SA & { groupByFile?: boolean | null }) =>
  filteredSeries(toSeriesQuery(p, a), a, PLAY_STAT_BY_TIME_FIELDS, (q) => selectPlayStatsByTime(s, q, a.groupByFile ?? false));

export function readHeatMap(s: S, p: P, table: 'impressions' | 'event_logs', a: A & { precision?: number | null }) {
  const q = toAnalyticsQuery(p, a);
  const precision = resolveLimit(a.precision, PRECISION, 'precision');
  return selectHeatMap(s, table, q, precision, list(a));
}

export const readMediaImpressions = (s: S, p: P, a: A) => selectMediaImpressions(s, toAnalyticsQuery(p, a), list(a));
export const readDeviceMediaImpressions = (s: S, p: P, a: A) => selectDeviceMediaImpressions(s, toAnalyticsQuery(p, a), list(a));
