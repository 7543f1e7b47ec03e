/**
 * The analytics reads behind the GraphQL queries (and through them the REST and legacy facades):
 * arguments validated into a query on the caller's account, then one SQL read.
 */
import { badInput, resolveLimit, type AnalyticsStore, type Principal } from '@pylon/kit';
import { PRECISION, selectAudienceMetrics, selectHeatMap, selectImpressions } from '../repositories/audience.queries.js';
import { selectDeviceMetrics } from '../repositories/device-metrics.queries.js';
import { selectEventFlow, selectEventLogs, selectEventMetrics } from '../repositories/event.queries.js';
import { selectDeviceMediaImpressions, selectMediaImpressions } from '../repositories/ots.queries.js';
import { selectDeviceMediaPlayStats, selectDevicePlayStats, selectMediaPlayStats, selectPlayStatsByTime } from '../repositories/play-stats.queries.js';
import { toAnalyticsQuery, toSeriesQuery, type AnalyticsArgs, type SeriesArgs } from './analytics-args.js';

type P = Principal;
type S = AnalyticsStore;

export const readEventLogs = (s: S, p: P, a: AnalyticsArgs & { where?: unknown; order?: unknown }) =>
  selectEventLogs(s, toAnalyticsQuery(p, a), { where: a.where, order: a.order });
export const readEventMetrics = (s: S, p: P, a: SeriesArgs & { groupByEvent?: boolean | null }) =>
  selectEventMetrics(s, toSeriesQuery(p, a), a.groupByEvent ?? false);
export const readEventFlow = (s: S, p: P, a: AnalyticsArgs) => selectEventFlow(s, toAnalyticsQuery(p, a));

export function readImpressions(s: S, p: P, a: AnalyticsArgs & { gender?: readonly string[] | null; ageRange?: readonly string[] | null }) {
  if ((a.gender?.length ?? 0) > 10) throw badInput('gender', 'at most 10 values');
  if ((a.ageRange?.length ?? 0) > 10) throw badInput('ageRange', 'at most 10 values');
  return selectImpressions(s, toAnalyticsQuery(p, a), { genders: [...(a.gender ?? [])], ageRanges: [...(a.ageRange ?? [])] });
}
export const readDeviceMetrics = (s: S, p: P, a: SeriesArgs) => selectDeviceMetrics(s, toSeriesQuery(p, a));
export const readAudienceMetrics = (s: S, p: P, a: SeriesArgs & { includeDwellTime?: boolean | null }) =>
  selectAudienceMetrics(s, toSeriesQuery(p, a), a.includeDwellTime ?? false);

export const readMediaPlayStats = (s: S, p: P, a: AnalyticsArgs) => selectMediaPlayStats(s, toAnalyticsQuery(p, a));
export const readDevicePlayStats = (s: S, p: P, a: AnalyticsArgs) => selectDevicePlayStats(s, toAnalyticsQuery(p, a));
export const readDeviceMediaPlayStats = (s: S, p: P, a: AnalyticsArgs) => selectDeviceMediaPlayStats(s, toAnalyticsQuery(p, a));
export const readPlayStatsByTime = (s: S, p: P, a: SeriesArgs & { groupByFile?: boolean | null }) =>
  selectPlayStatsByTime(s, toSeriesQuery(p, a), a.groupByFile ?? false);

export function readHeatMap(s: S, p: P, table: 'impressions' | 'event_logs', a: AnalyticsArgs & { precision?: number | null }) {
  const q = toAnalyticsQuery(p, a);
  const precision = resolveLimit(a.precision, PRECISION, 'precision');
  return selectHeatMap(s, table, q, precision);
}

export const readMediaImpressions = (s: S, p: P, a: AnalyticsArgs) => selectMediaImpressions(s, toAnalyticsQuery(p, a));
export const readDeviceMediaImpressions = (s: S, p: P, a: AnalyticsArgs) => selectDeviceMediaImpressions(s, toAnalyticsQuery(p, a));
