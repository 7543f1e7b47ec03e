/**
 * The validated form of an analytics query's arguments: one account, a half-open UTC range, the
 * optional filters and a limit. Series queries add the interval, the zone and their buckets.
 */
import type { Bucket, Interval } from './buckets.js';
import type { DateRange } from './date-range.js';

/** limit of the analytics queries: default 1000, at most 10000 (spec, Limits). */
export const ANALYTICS_LIMIT = { default: 1000, max: 10_000 } as const;
/** At most this many ids or names in one filter argument. */
export const MAX_FILTER_VALUES = 1000;

export interface AnalyticsQuery {
  accountId: string;
  range: DateRange;
  /** Empty: no filter. */
  deviceIds: string[];
  fileIds: string[];
  eventNames: string[];
  limit: number;
}

export interface SeriesQuery extends AnalyticsQuery {
  interval: Interval;
  /** IANA zone the periods are aligned in. */
  timeZone: string;
  /** Every period of the range, in order. */
  buckets: Bucket[];
}
