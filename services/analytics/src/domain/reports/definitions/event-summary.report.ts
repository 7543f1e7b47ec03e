/** Custom events: per period and event name, how many, on how many devices and in how many sessions. */
import type { SqlReport } from '../report.js';
import { COLUMNS, periodOf, scope } from './scope.js';

export const eventSummary: SqlReport = {
  kind: 'sql',
  id: 'event_summary',
  name: 'Custom events',
  description: 'Per period (interval_type, UTC) and event name: events, devices and sessions (interactive content: touches, scans, ...).',
  filters: { device: true, media: false, interval: true, timeOfDay: true },
  table: 'event_logs',
  columns: [
    COLUMNS.period,
    { key: 'event_name', title: 'Event', type: 'text', width: 22 },
    { key: 'events', title: 'Events', type: 'integer', total: true, width: 8 },
    COLUMNS.devices,
    { key: 'sessions', title: 'Sessions', type: 'integer', width: 8 },
  ],
  chart: { title: 'Events per period', category: 'period', value: 'events', aggregate: 'sum' },
  digest: ['period', 'event_name', 'events', 'devices', 'sessions'],
  sql(req) {
    const { where, params } = scope(req);
    return {
      sql: `SELECT ${periodOf(req.interval)} AS period, event_name, toUInt64(count()) AS events,
       toUInt64(uniqExact(device_id)) AS devices, toUInt64(uniqExactIf(session_id, session_id != '')) AS sessions
FROM event_logs FINAL
WHERE ${where}
GROUP BY period, event_name
ORDER BY period, event_name`,
      params,
    };
  },
};
