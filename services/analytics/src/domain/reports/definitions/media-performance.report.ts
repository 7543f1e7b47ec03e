/** Media performance: per period and file, how often and how long it played, on how many devices. */
import type { SqlReport } from '../report.js';
import { COLUMNS, periodOf, scope } from './scope.js';

export const mediaPerformance: SqlReport = {
  kind: 'sql',
  id: 'media_performance',
  name: 'Media performance',
  description:
    'Per period (interval_type, UTC) and file: plays, total play time, average play time and the number of devices that played it. File names are the recorded ones, kept for deleted files.',
  filters: { device: true, media: true, interval: true, timeOfDay: true },
  table: 'play_logs',
  columns: [
    COLUMNS.period,
    { key: 'file_id', title: 'File ID', type: 'text', width: 16 },
    { key: 'file_name', title: 'File', type: 'text', width: 22 },
    COLUMNS.plays,
    COLUMNS.playTime,
    { key: 'avg_duration', title: 'Average play (s)', type: 'seconds', width: 10 },
    COLUMNS.devices,
  ],
  chart: { title: 'Plays per period', category: 'period', value: 'plays', aggregate: 'sum' },
  digest: ['period', 'file_id', 'file_name', 'plays', 'play_time', 'avg_duration', 'devices'],
  sql(req) {
    const { where, params } = scope(req, { media: 'file_id', completedPlays: true });
    return {
      sql: `SELECT ${periodOf(req.interval)} AS period, file_id, argMax(file_name, timestamp) AS file_name,
       toUInt64(count()) AS plays, round(sum(round(duration, 3)), 3) AS play_time, round(avg(duration), 3) AS avg_duration,
       toUInt64(uniqExact(device_id)) AS devices
FROM play_logs FINAL
WHERE ${where}
GROUP BY period, file_id
ORDER BY period, file_id`,
      params,
    };
  },
};
