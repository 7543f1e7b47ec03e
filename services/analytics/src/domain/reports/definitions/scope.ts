/**
 * The WHERE clause every report shares: the caller's account, the half-open range [from, to), the
 * optional device and media filters, and the optional time-of-day window. Values are bound.
 */
import type { SqlParams } from '@pylon/kit';
import type { ReportColumn, ReportInterval, ReportRequest } from '../report.js';

/** `completedPlays`: a play_logs report counts completed plays only (skipped and failed attempts are not plays). */
export function scope(req: ReportRequest, opts: { media?: string; completedPlays?: boolean } = {}): { where: string; params: SqlParams } {
  const where = [
    'account_id = {acc:String}',
    "timestamp >= parseDateTime64BestEffort({from:String}, 3, 'UTC')",
    "timestamp < parseDateTime64BestEffort({to:String}, 3, 'UTC')",
  ];
  const params: SqlParams = { acc: req.accountId, from: req.from.toISOString(), to: req.to.toISOString() };
  if (req.deviceIds.length) {
    where.push('has({devices:Array(String)}, device_id)');
    params.devices = req.deviceIds;
  }
  if (opts.media && req.mediaIds.length) {
    where.push(`has({media:Array(String)}, ${opts.media})`);
    params.media = req.mediaIds;
  }
  if (opts.completedPlays) where.push("status = 'completed'");
  if (req.timeOfDay) {
    where.push('(toHour(timestamp) * 3600 + toMinute(timestamp) * 60 + toSecond(timestamp)) BETWEEN {tod_start:UInt32} AND {tod_end:UInt32}');
    params.tod_start = req.timeOfDay.start;
    params.tod_end = req.timeOfDay.end;
  }
  return { where: where.join('\n  AND '), params };
}

const UNIT: Record<ReportInterval, string> = { Minute: 'minute', Hour: 'hour', Day: 'day', Month: 'month' };

/** The start of the row's period (UTC) as DateTime64(3), so it prints as an ISO instant with milliseconds. */
export const periodOf = (interval: ReportInterval, column = 'timestamp') =>
  `toDateTime64(toStartOfInterval(${column}, INTERVAL 1 ${UNIT[interval]}, 'UTC'), 3, 'UTC')`;

/** The device's name from the looked-up names, or its id when the device is gone. */
export const deviceName = (column = 'device_id') => `transform(${column}, {dev_ids:Array(String)}, {dev_names:Array(String)}, ${column})`;

/** A playlist's or schedule's name from the looked-up names (`key`: pl or sc), empty when it is gone. */
export const lookedUpName = (column: string, key: 'pl' | 'sc') => `transform(${column}, {${key}_ids:Array(String)}, {${key}_names:Array(String)}, '')`;

/** The columns several reports share, written once so their titles and widths stay alike. */
export const COLUMNS = {
  period: { key: 'period', title: 'Period (UTC)', type: 'datetime', width: 14 },
  plays: { key: 'plays', title: 'Plays', type: 'integer', total: true, width: 8 },
  playTime: { key: 'play_time', title: 'Play time (s)', type: 'seconds', total: true, width: 10 },
  devices: { key: 'devices', title: 'Devices', type: 'integer', width: 8 },
  deviceId: { key: 'device_id', title: 'Device ID', type: 'text', width: 16 },
  deviceName: { key: 'device_name', title: 'Device', type: 'text', width: 20 },
} as const satisfies Record<string, ReportColumn>;
