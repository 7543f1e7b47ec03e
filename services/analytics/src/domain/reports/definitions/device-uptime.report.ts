/**
 * Device uptime: per period and device, the share of 10-minute slots in which the device pinged.
 * A device counts as online for DEVICE_ONLINE_WINDOW_SECONDS (600) after a ping, so a slot with a
 * ping is a slot the device was up; slots are counted within the period and the requested range.
 */
import type { ReportDefinition } from '../report.js';
import { deviceName, periodOf, scope } from './scope.js';

/** The uptime slot, in seconds. */
export const UPTIME_SLOT_SECONDS = 600;

export const deviceUptime: ReportDefinition = {
  id: 'device_uptime',
  name: 'Device uptime',
  description:
    'Per period (interval_type, UTC) and device: pings, the 10-minute slots in which the device pinged, the slots of the period within the range and up to now, and the uptime percentage (slots online / slots). Only devices that pinged at least once in the range are listed.',
  filters: { device: true, media: false, interval: true },
  table: 'ping_logs',
  deviceColumn: 'device_id',
  columns: [
    { key: 'period', title: 'Period (UTC)', type: 'datetime', width: 14 },
    { key: 'device_id', title: 'Device ID', type: 'text', width: 16 },
    { key: 'device_name', title: 'Device', type: 'text', width: 20 },
    { key: 'pings', title: 'Pings', type: 'integer', total: true, width: 8 },
    { key: 'slots_online', title: 'Slots online', type: 'integer', total: true, width: 8 },
    { key: 'slots', title: 'Slots', type: 'integer', total: true, width: 8 },
    { key: 'uptime', title: 'Uptime %', type: 'percent', width: 8 },
  ],
  chart: { title: 'Average uptime per period (%)', category: 'period', value: 'uptime', aggregate: 'avg' },
  sql(req, names) {
    const { where, params } = scope(req);
    const unit = { Minute: 'minute', Hour: 'hour', Day: 'day', Month: 'month' }[req.interval];
    // Slots of the period that lie in the range and have begun: from max(period start, from) to
    // min(period end, to, now); the rest of the current hour is not downtime yet.
    const slots = `toUInt64(greatest(0, intDiv(
        toUnixTimestamp(least(toDateTime(period) + INTERVAL 1 ${unit}, parseDateTimeBestEffort({to:String}, 'UTC'), now('UTC')))
        - toUnixTimestamp(greatest(toDateTime(period), parseDateTimeBestEffort({from:String}, 'UTC'))) + ${UPTIME_SLOT_SECONDS - 1},
        ${UPTIME_SLOT_SECONDS})))`;
    return {
      sql: `SELECT period, device_id, ${deviceName()} AS device_name, pings, slots_online, ${slots} AS slots,
       round(least(100, 100 * slots_online / greatest(slots, 1)), 2) AS uptime
FROM (
  SELECT ${periodOf(req.interval)} AS period, device_id, toUInt64(count()) AS pings,
         toUInt64(uniqExact(intDiv(toUnixTimestamp(timestamp), ${UPTIME_SLOT_SECONDS}))) AS slots_online
  FROM ping_logs FINAL
  WHERE ${where}
  GROUP BY period, device_id
)
ORDER BY period, device_id`,
      params: { ...params, dev_ids: names.ids, dev_names: names.names },
    };
  },
};
