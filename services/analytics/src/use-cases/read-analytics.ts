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
import type { AnalyticsQuery } from '../domain/analytics-query.js';
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
/** Which of `ids` are the caller's devices (the devices subgraph's answer). */
export type OwnedDevices = (ids: readonly string[]) => Promise<ReadonlySet<string>>;

export interface SeriesReadOptions {
  /** Without it, a device of the filter shows only when it has data (none can be confirmed). */
  owned?: OwnedDevices;
  /** The clock (default: the current time). */
  now?: Date;
}

/** The ids of the device filter that are the caller's devices: each gets its series, zeros without data. */
async function listedDevices(q: AnalyticsQuery, owned: OwnedDevices | undefined): Promise<string[]> {
  if (!owned || q.deviceIds.length === 0) return [];
  const mine = await owned(q.deviceIds);
  return q.deviceIds.filter((id) => mine.has(id));
}

export async function readDeviceMetrics(s: S, p: P, a: SeriesArgs, o: SeriesReadOptions = {}) {
  const q = toSeriesQuery(p, a);
  return selectDeviceMetrics(s, q, undefined, { now: o.now, devices: await listedDevices(q, o.owned) });
}
export async function readAudienceMetrics(s: S, p: P, a: SeriesArgs & { includeDwellTime?: boolean | null }, o: SeriesReadOptions = {}) {
  const q = toSeriesQuery(p, a);
  return selectAudienceMetrics(s, q, a.includeDwellTime ?? false, undefined, { now: o.now, devices: await listedDevices(q, o.owned) });
}

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
