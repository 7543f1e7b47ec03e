/**
 * Device uptime: per device and period, the uptime and health of GraphQL `deviceMetrics` (the same
 * repository function, so the report and the query cannot disagree): a device is up in a minute
 * in which it pinged; uptime = such minutes / the minutes of the period inside the range that have
 * begun by the time of the export (a period still running is not down for the minutes to come),
 * over the on-hours only for a device with a power schedule (its off-hours are neither up nor down).
 * Every device of the account (or of device_id) is listed for every period, a period without pings
 * at 0 %, so a device down for the whole range is in the file, not missing from it.
 */
import type { DeviceSeriesReport } from '../report.js';
import { COLUMNS } from './scope.js';

const round2 = (v: number) => Math.round(v * 100) / 100;

export const deviceUptime: DeviceSeriesReport = {
  kind: 'device-series',
  id: 'device_uptime',
  name: 'Device uptime',
  description:
    'Per device and period (interval_type, UTC): the uptime percentage (minutes with at least one ping / minutes of the period within the range and up to the time of the export, as GraphQL deviceMetrics.uptimePercentage; a device with a power schedule counts only its on-hours, off-hours neither up nor down), CPU and memory (average and maximum, %), and health alerts. Every device of the account (or of device_id, deleted ones included) for every period begun: a period without pings is 0 %. The summary prints the average uptime of the rows.',
  filters: { device: true, media: false, interval: true, timeOfDay: false },
  table: 'ping_logs',
  columns: [
    COLUMNS.period,
    COLUMNS.deviceId,
    COLUMNS.deviceName,
    { key: 'uptime', title: 'Uptime %', type: 'percent', average: true, width: 8 },
    { key: 'avg_cpu', title: 'Average CPU %', type: 'percent', width: 8 },
    { key: 'max_cpu', title: 'Max CPU %', type: 'percent', width: 8 },
    { key: 'avg_memory', title: 'Average memory %', type: 'percent', width: 8 },
    { key: 'max_memory', title: 'Max memory %', type: 'percent', width: 8 },
    { key: 'alerts', title: 'Alerts', type: 'integer', total: true, width: 8 },
  ],
  chart: { title: 'Average uptime per period (%)', category: 'period', value: 'uptime', aggregate: 'avg' },
  digest: ['period', 'device_id', 'uptime', 'avg_cpu', 'max_cpu', 'avg_memory', 'max_memory', 'alerts'],
  row: (m, deviceName) => ({
    period: new Date(m.periodStart).toISOString(),
    device_id: m.deviceId,
    device_name: deviceName,
    uptime: round2(m.uptimePercentage),
    avg_cpu: round2(m.avgCpuUsage),
    max_cpu: round2(m.maxCpuUsage),
    avg_memory: round2(m.avgMemoryUsage),
    max_memory: round2(m.maxMemoryUsage),
    alerts: m.alertCount,
  }),
};
