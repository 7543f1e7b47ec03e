import { resolveLimit, type AnalyticsStore, type Principal } from '@pylon/kit';
import { parseDateRange } from '../../domain/date-range.js';
import { filterValues } from '../../shared/analytics-args.js';
import { LOG_LIMIT, type LogQuery, type PingLog, type PlayLog } from '../../domain/logs.js';
import { selectPingLogs, selectPlayLogs } from './log.queries.js';

export interface LogArgs {
  startDate: string;
  endDate: string;
  deviceId?: string[] | null;
  /** Play logs only (ping logs carry no file). */
  fileId?: string[] | null;
  limit?: number | null;
  where?: unknown;
  order?: unknown;
}

/** Validates the arguments (dates, id lists, limit) into a query scoped to the caller's account. */
export function toLogQuery(principal: Principal, args: LogArgs): LogQuery {
  return {
    accountId: principal.accountId,
    range: parseDateRange(args.startDate, args.endDate),
    deviceIds: filterValues(args.deviceId, 'deviceId'),
    fileIds: filterValues(args.fileId, 'fileId'),
    limit: resolveLimit(args.limit, LOG_LIMIT),
    where: args.where,
    order: args.order,
  };
}

export function readPlayLogs(store: AnalyticsStore, principal: Principal, args: LogArgs): Promise<PlayLog[]> {
  return selectPlayLogs(store, toLogQuery(principal, args));
}

export function readPingLogs(store: AnalyticsStore, principal: Principal, args: Omit<LogArgs, 'fileId'>): Promise<PingLog[]> {
  return selectPingLogs(store, toLogQuery(principal, args));
}
