/** Device activity: per period and device, plays, play time and distinct files. */
import type { SqlReport } from '../report.js';
import { COLUMNS, deviceName, periodOf, scope } from './scope.js';

export const deviceActivity: SqlReport = {
  kind: 'sql',
  id: 'device_activity',
  name: 'Device activity',
  description: 'Per period (interval_type, UTC) and device: plays, total play time and the number of distinct files played.',
  filters: { device: true, media: true, interval: true, timeOfDay: true },
  table: 'play_logs',
  deviceColumn: 'device_id',
  columns: [COLUMNS.period, COLUMNS.deviceId, COLUMNS.deviceName, COLUMNS.plays, COLUMNS.playTime, { key: 'files', title: 'Files', type: 'integer', width: 8 }],
  chart: { title: 'Play time per period (s)', category: 'period', value: 'play_time', aggregate: 'sum' },
  digest: ['period', 'device_id', 'plays', 'play_time', 'files'],
  sql(req, names) {
    const { where, params } = scope(req, { media: 'file_id', completedPlays: true });
    return {
      sql: `SELECT ${periodOf(req.interval)} AS period, device_id, ${deviceName()} AS device_name,
       toUInt64(count()) AS plays, round(sum(round(duration, 3)), 3) AS play_time, toUInt64(uniqExact(file_id)) AS files
FROM play_logs FINAL
WHERE ${where}
GROUP BY period, device_id
ORDER BY period, device_id`,
      params: { ...params, dev_ids: names.ids, dev_names: names.names },
    };
  },
};
