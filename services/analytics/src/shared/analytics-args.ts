/** Validates analytics query arguments (dates, filters, interval, zone, limit) into queries on the caller's account. */
import { badInput, resolveLimit, type Principal } from '@pylon/kit';
import { ANALYTICS_LIMIT, MAX_FILTER_VALUES, type AnalyticsQuery, type SeriesQuery } from '../domain/analytics-query.js';
import { bucketsOf, INTERVALS, isTimeZone, type Interval } from '../domain/buckets.js';
import { parseDateRange } from '../domain/date-range.js';

export interface AnalyticsArgs {
  startDate: string;
  endDate: string;
  deviceId?: readonly string[] | null;
  fileId?: readonly string[] | null;
  eventName?: readonly string[] | null;
  limit?: number | null;
}

export interface SeriesArgs extends AnalyticsArgs {
  interval?: string | null;
  timeZone?: string | null;
}

/** A filter's id list, checked: at most MAX_FILTER_VALUES strings of at most 200 characters. */
export function filterValues(v: readonly string[] | null | undefined, field: string): string[] {
  if (!v) return [];
  if (v.length > MAX_FILTER_VALUES) throw badInput(field, `${field} holds more than ${MAX_FILTER_VALUES} values`);
  for (const x of v) if (typeof x !== 'string' || x.length > 200) throw badInput(field, `${field} values must be strings of at most 200 characters`);
  return [...v];
}

/** `timeZone` (checked by the caller): the zone dates without an offset are read in (parseDateRange). */
export function toAnalyticsQuery(principal: Principal, args: AnalyticsArgs, timeZone = 'UTC'): AnalyticsQuery {
  return {
    accountId: principal.accountId,
    range: parseDateRange(args.startDate, args.endDate, timeZone),
    deviceIds: filterValues(args.deviceId, 'deviceId'),
    fileIds: filterValues(args.fileId, 'fileId'),
    eventNames: filterValues(args.eventName, 'eventName'),
    limit: resolveLimit(args.limit, ANALYTICS_LIMIT),
  };
}

export function toSeriesQuery(principal: Principal, args: SeriesArgs): SeriesQuery {
  const interval = (args.interval ?? 'DAY').toUpperCase() as Interval;
  if (!INTERVALS.includes(interval)) throw badInput('interval', `interval must be one of ${INTERVALS.join(', ').toLowerCase()}`);
  const timeZone = args.timeZone || 'UTC';
  if (!isTimeZone(timeZone)) throw badInput('timeZone', 'timeZone must be an IANA time zone name, e.g. Europe/Berlin');
  const q = toAnalyticsQuery(principal, args, timeZone);
  return { ...q, interval, timeZone, buckets: bucketsOf(q.range, interval, timeZone) };
}
