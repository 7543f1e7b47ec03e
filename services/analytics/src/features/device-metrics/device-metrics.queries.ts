/**
 * Device health per device and period from ping_logs. Uptime: a device is up in a minute in which
 * it pinged; uptimePercentage = such minutes / the minutes of the period that lie inside the
 * queried range and have begun by `now` (the current period so far; a period wholly after `now`
 * has none and is 0). Those minutes are counted here, not in SQL, so raw and rollups share them.
 * With power schedules (`off`), a device's minutes off by its schedule count neither as minutes of
 * the period nor as uptime (a web player keeps pinging while blank; a native one may be unplugged):
 * uptime is over the on-hours only. That read goes to the raw pings, whose minutes can be told apart
 * (a rollup's minute masks would need the off-hours per hour).
 * An alert is a ping at or above HEALTH_ALERT_PERCENT of CPU, memory or disk (the hourly rollup in
 * 003_rollups.sql counts with the same 90).
 */
import type { AnalyticsStore } from '@pylon/kit';
import type { SeriesQuery } from '../../domain/analytics-query.js';
import { MINUTE } from '../../domain/buckets.js';
import { grainsOf, planSource, ROLLUPS, type Source } from '../../domain/rollup-plan.js';
import { deviceSeries } from '../../domain/series.js';
import type { DeviceMetric } from '../../shared/resolvers.generated.js';
import { isoOf, periodExpr, scope } from '../../shared/scope.sql.js';

export const HEALTH_ALERT_PERCENT = 90;
/** The minute-mask columns of each ping rollup: the hour's (hour grain), one per four hours of the day (day grain, 240 bits each). */
const MASKS = {
  HOUR: ['minutes'],
  DAY: ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'],
} as const satisfies Record<keyof typeof ROLLUPS.pings, readonly string[]>;

interface Row {
  device_id: string;
  p: number;
  avg_cpu: number;
  max_cpu: number;
  avg_mem: number;
  max_mem: number;
  up: number;
  alerts: number;
}

export interface DeviceMetricsOptions {
  /** The clock uptime counts elapsed minutes up to (default: the current time). */
  now?: Date;
  /**
   * Devices that get a series even without a ping in the range (zeros): the ids of the query's
   * device filter that are the caller's (checked by the caller of this function). Default: only
   * the devices that pinged. A promise is awaited after the query, so the check runs beside it.
   */
  devices?: readonly string[] | Promise<readonly string[]>;
  /** Off-hours by device ([from, to) epoch ms): left out of uptime's minutes, both counted and elapsed. */
  off?: Map<string, [number, number][]> | Promise<Map<string, [number, number][]>>;
}

/**
 * `source`: raw ping logs or a ping rollup, hourly or daily (default: what the planner chooses for
 * the range; pass undefined to keep it while giving `o`).
 */
export async function selectDeviceMetrics(
  store: AnalyticsStore,
  q: SeriesQuery,
  source: Source = planSource(q.range, q.buckets, grainsOf(ROLLUPS.pings)),
  o: DeviceMetricsOptions = {},
): Promise<DeviceMetric[]> {
  const off = (await o.off) ?? new Map<string, [number, number][]>();
  const flat = [...off].flatMap(([d, ws]) => ws.map(([a, b]) => [d, Math.floor(a / 1000), Math.ceil(b / 1000)] as const));
  if (flat.length) source = 'RAW';
  const grain = source === 'HOUR' || source === 'DAY' ? source : null;
  const { where, params } = scope(q, grain ? { device: 'device_id', time: 'period' } : { device: 'device_id' });
  const rows = await store.query<Row>(
    grain
      ? // A rollup (006 hourly: one minute mask; 009 daily: six): each period's
        // partial rows merged first (sums, maxima, the masks ORed), then its pinged minutes counted
        // and summed over the answer's period.
        `SELECT device_id, ${periodExpr(q.interval, 'period')} AS p, sum(n) AS pings_total, sum(c) / pings_total AS avg_cpu, max(cm) AS max_cpu,
  sum(m) / pings_total AS avg_mem, max(mm) AS max_mem, sum(${MASKS[grain].map((_, i) => `bitCount(mask${i})`).join(' + ')}) AS up, sum(a) AS alerts
FROM (
  SELECT device_id, period, sum(pings) AS n, sum(cpu_sum) AS c, max(cpu_max) AS cm, sum(mem_sum) AS m, max(mem_max) AS mm,
    sum(alerts) AS a, ${MASKS[grain].map((col, i) => `groupBitOr(${col}) AS mask${i}`).join(', ')}
  FROM ${ROLLUPS.pings[grain]}
  WHERE ${where}
  GROUP BY device_id, period
)
GROUP BY device_id, p`
      : `SELECT device_id, ${periodExpr(q.interval, 'timestamp')} AS p,
  avg(cpu_usage) AS avg_cpu, max(cpu_usage) AS max_cpu, avg(memory_usage) AS avg_mem, max(memory_usage) AS max_mem,
  ${flat.length ? `uniqExactIf(toStartOfMinute(timestamp), NOT arrayExists((d, a, b) -> d = device_id AND toUnixTimestamp(timestamp) >= a AND toUnixTimestamp(timestamp) < b, {offDev:Array(String)}, {offFrom:Array(Int64)}, {offTo:Array(Int64)}))` : 'uniqExact(toStartOfMinute(timestamp))'} AS up,
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= {alertAt:Float64}) AS alerts
FROM ping_logs FINAL
WHERE ${where}
GROUP BY device_id, p`,
    {
      ...params,
      tz: q.timeZone,
      alertAt: HEALTH_ALERT_PERCENT,
      ...(flat.length ? { offDev: flat.map((f) => f[0]), offFrom: flat.map((f) => f[1]), offTo: flat.map((f) => f[2]) } : {}),
    },
  );
  const from = q.range.from.getTime(),
    to = Math.min(q.range.to.getTime(), (o.now ?? new Date()).getTime());
  const series = deviceSeries(
    q.buckets,
    rows,
    await o.devices,
    (deviceId, b, r): DeviceMetric => {
      // Minutes of the period inside the range that have begun by now (a partial minute counts: a
      // ping in it is uptime); none for a period after now.
      const start = Math.floor(Math.max(b.start, from) / MINUTE) * MINUTE;
      const end = Math.min(b.end, to);
      // Whole minutes off by the device's power schedule inside [start, end).
      const offMinutes = (off.get(deviceId) ?? []).reduce((n, [a, z]) => n + Math.max(0, Math.floor((Math.min(z, end) - Math.max(a, start)) / MINUTE)), 0);
      const minutes = Math.max(0, Math.ceil((end - start) / MINUTE) - offMinutes);
      return {
        deviceId,
        periodStart: isoOf(b.start),
        periodEnd: isoOf(b.end),
        avgCpuUsage: r ? Number(r.avg_cpu) : 0,
        maxCpuUsage: r ? Number(r.max_cpu) : 0,
        avgMemoryUsage: r ? Number(r.avg_mem) : 0,
        maxMemoryUsage: r ? Number(r.max_mem) : 0,
        uptimePercentage: r && minutes > 0 ? Math.min(100, (100 * Number(r.up)) / minutes) : 0,
        alertCount: r ? Number(r.alerts) : 0,
      };
    },
    q.limit,
  );
  return series;
}
