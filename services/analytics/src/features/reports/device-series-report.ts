/**
 * The rows of a device-series report (device uptime): one per device and period, read through
 * deviceMetrics' repository function (selectDeviceMetrics), so the report's uptime is the GraphQL
 * query's, over the on-hours of devices with a power schedule. The devices are the caller's devices (the directory's list) and the ones the caller's
 * pings name in the range (deleted since), or exactly the device_id filter; each listed for every
 * period of [from, min(to, now)), a period without pings as the zero record. Read in chunks of
 * devices (at most CHUNK_ROWS records a query), so memory stays bounded by one chunk.
 */
import { badInput, type AnalyticsStore, type Principal } from '@pylon/kit';
import type { SeriesQuery } from '../../domain/analytics-query.js';
import { bucketsOf, MINUTE, type Bucket, type Interval } from '../../domain/buckets.js';
import type { DevicePeriodHealth, DeviceSeriesReport, ReportInterval, ReportRequest } from '../../domain/reports/report.js';
import { scope } from '../../domain/reports/definitions/scope.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { selectDeviceMetrics } from '../device-metrics/device-metrics.queries.js';
import { selectDistinctDevices } from './report-ids.queries.js';

/** At most this many rows (devices x periods) in one device-series export: the 1M-row export target. */
export const MAX_DEVICE_SERIES_ROWS = 1_000_000;
/** At most this many devices in one device-series export. */
export const MAX_SERIES_DEVICES = 10_000;
/** Records read by one deviceMetrics call. */
const CHUNK_ROWS = 50_000;

const INTERVAL: Record<ReportInterval, Interval> = { Minute: 'MINUTE', Hour: 'HOUR', Day: 'DAY', Month: 'MONTH' };

export interface DeviceSeriesPlan {
  /** id -> name (the id for a device gone), in row order. */
  devices: Map<string, string>;
  buckets: Bucket[];
  /** The range read: [from, min(to, now rounded up to the minute)). */
  range: { from: Date; to: Date };
  rows: number;
  /**
   * Off-hours by device (power schedules, [from, to) epoch ms) inside the range: uptime counts only
   * the on-hours, as deviceMetrics does. Empty when no device has a schedule.
   */
  off: Map<string, [number, number][]>;
}

/** Which devices and periods the export lists; refuses (400) more than MAX_DEVICE_SERIES_ROWS rows. */
export async function planDeviceSeries(
  deps: { analytics: AnalyticsStore; directory: ReportDirectory },
  caller: Principal,
  req: ReportRequest,
  now: Date,
): Promise<DeviceSeriesPlan> {
  // Minutes after now have not happened: not counted as down (a partial current minute counts, as in deviceMetrics).
  const to = new Date(Math.min(req.to.getTime(), Math.ceil(now.getTime() / MINUTE) * MINUTE));
  const range = { from: req.from, to };
  const buckets = to > req.from ? bucketsOf(range, INTERVAL[req.interval], 'UTC') : [];
  let devices: Map<string, string>;
  if (req.deviceIds.length) {
    // Checked before (live or recorded); a device gone is shown by its id.
    const live = await deps.directory.devices(caller, req.deviceIds);
    devices = new Map([...req.deviceIds].sort().map((id) => [id, live.get(id) ?? id]));
  } else {
    const [live, pinged] = await Promise.all([
      // One more than allowed from each source: a source cut at the cap would hide devices.
      deps.directory.listDevices(caller, MAX_SERIES_DEVICES + 1),
      selectDistinctDevices(deps.analytics, 'ping_logs', scope(req), MAX_SERIES_DEVICES + 1),
    ]);
    const ids = [...new Set([...live.keys(), ...pinged])].sort();
    if (ids.length > MAX_SERIES_DEVICES)
      throw badInput('device_id', `the account has more than ${MAX_SERIES_DEVICES} devices; name at most ${MAX_SERIES_DEVICES} in device_id`);
    devices = new Map(ids.map((id) => [id, live.get(id) ?? id]));
  }
  const rows = devices.size * buckets.length;
  if (rows > MAX_DEVICE_SERIES_ROWS)
    throw badInput(
      'interval_type',
      `${devices.size} devices x ${buckets.length} periods exceed ${MAX_DEVICE_SERIES_ROWS} rows; choose a longer interval_type, a shorter range or fewer device_id`,
    );
  const scheduled = deps.directory.powerOff
    ? await deps.directory.powerOff(caller, range.from.getTime(), range.to.getTime())
    : new Map<string, [number, number][]>();
  const off = new Map([...scheduled].filter(([id]) => devices.has(id)));
  return { devices, buckets, range, rows, off };
}

const zero = (deviceId: string, b: Bucket): DevicePeriodHealth => ({
  deviceId,
  periodStart: new Date(b.start).toISOString(),
  uptimePercentage: 0,
  avgCpuUsage: 0,
  maxCpuUsage: 0,
  avgMemoryUsage: 0,
  maxMemoryUsage: 0,
  alertCount: 0,
});

/** The rows, device by device (by id), each device's periods in time order; one batch per chunk of devices. */
export async function* deviceSeriesBatches(
  store: AnalyticsStore,
  report: DeviceSeriesReport,
  req: ReportRequest,
  plan: DeviceSeriesPlan,
): AsyncGenerator<Record<string, unknown>[]> {
  if (plan.buckets.length === 0) return;
  const ids = [...plan.devices.keys()];
  const per = Math.max(1, Math.floor(CHUNK_ROWS / plan.buckets.length));
  for (let i = 0; i < ids.length; i += per) {
    const chunk = ids.slice(i, i + per);
    const q: SeriesQuery = {
      accountId: req.accountId,
      range: plan.range,
      deviceIds: chunk,
      fileIds: [],
      eventNames: [],
      limit: chunk.length * plan.buckets.length,
      interval: INTERVAL[req.interval],
      timeZone: 'UTC',
      buckets: plan.buckets,
    };
    const found = new Map<string, DevicePeriodHealth>();
    const off = new Map(chunk.flatMap((id) => (plan.off.has(id) ? [[id, plan.off.get(id)!] as const] : [])));
    for (const m of await selectDeviceMetrics(store, q, undefined, { now: plan.range.to, off }))
      found.set(`${m.deviceId}\u0000${Date.parse(m.periodStart)}`, m);
    const batch: Record<string, unknown>[] = [];
    for (const id of chunk) for (const b of plan.buckets) batch.push(report.row(found.get(`${id}\u0000${b.start}`) ?? zero(id, b), plan.devices.get(id) ?? id));
    yield batch;
  }
}
