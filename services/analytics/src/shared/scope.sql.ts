/**
 * SQL pieces every analytics query shares: the account/range/filter WHERE clause, the period
 * expression matching domain/buckets.ts, the limit. Every value is bound as a `{name:Type}`
 * parameter; only integers validated here are spliced into the text.
 */
import type { SqlParams } from '@pylon/kit';
import type { AnalyticsQuery } from '../domain/analytics-query.js';
import type { Interval } from '../domain/buckets.js';

/** Which columns of the table the query's filters apply to (absent: the filter does not apply). */
export interface ScopeColumns {
  device?: string;
  file?: string;
  event?: string;
  /** The table's time column (default `timestamp`). */
  time?: string;
  /** A play status column: only completed plays count (skipped and failed attempts are listed in playLogs, never counted). */
  status?: string;
}

export interface Scope {
  where: string;
  params: SqlParams;
}

/** account = caller, time in [from, to), and the id/name filters given. */
export function scope(q: AnalyticsQuery, cols: ScopeColumns = { device: 'device_id' }, prefix = ''): Scope {
  const time = cols.time ?? 'timestamp';
  const where = [
    `${prefix}account_id = {acc:String}`,
    `${prefix}${time} >= parseDateTime64BestEffort({from:String}, 3, 'UTC')`,
    `${prefix}${time} < parseDateTime64BestEffort({to:String}, 3, 'UTC')`,
  ];
  const params: SqlParams = { acc: q.accountId, from: q.range.from.toISOString(), to: q.range.to.toISOString() };
  const filter = (column: string | undefined, values: string[], name: string) => {
    if (!column || !values.length) return;
    where.push(`has({${name}:Array(String)}, ${prefix}${column})`);
    params[name] = values;
  };
  filter(cols.device, q.deviceIds, 'devices');
  filter(cols.file, q.fileIds, 'files');
  filter(cols.event, q.eventNames, 'events');
  if (cols.status) where.push(`${prefix}${cols.status} = 'completed'`);
  return { where: where.join('\n  AND '), params };
}

/**
 * Start of the period of `column` (a DateTime in UTC: a rollup's period, or a raw table's
 * DateTime64 timestamp as it is, which the calendar functions take directly; converting it with
 * toDateTime first costs ~8 % of a 100M-row scan) as epoch seconds, in the zone bound as
 * {tz:String}: ClickHouse's calendar functions, the same periods as bucketStart.
 */
export function periodExpr(interval: Interval, column: string): string {
  switch (interval) {
    case 'MINUTE':
      return `toUnixTimestamp(toStartOfMinute(${column}))`;
    case 'HOUR':
      return `toUnixTimestamp(toStartOfHour(${column}, {tz:String}))`;
    case 'DAY':
      return `toUnixTimestamp(toStartOfDay(${column}, {tz:String}))`;
    case 'WEEK':
      return `toUnixTimestamp(toDateTime(toMonday(${column}, {tz:String}), {tz:String}))`;
    case 'MONTH':
      return `toUnixTimestamp(toDateTime(toStartOfMonth(${column}, {tz:String}), {tz:String}))`;
  }
}

export function limitClause(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`analytics query limit must be a non-negative integer, got ${limit}`);
  return `LIMIT ${limit}`;
}

/** Seconds precision and a literal Z, whatever the engine's output settings. */
export const isoSql = (expr: string) => `formatDateTime(${expr}, '%Y-%m-%dT%H:%i:%SZ', 'UTC')`;

/** Epoch ms -> YYYY-MM-DDTHH:MM:SSZ. */
export const isoOf = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';
