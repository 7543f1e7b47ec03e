/** Audience summary: per period, impressions, unique visitors, dwell and the split by gender. */
import type { SqlReport } from '../report.js';
import { COLUMNS, periodOf, scope } from './scope.js';

export const audienceSummary: SqlReport = {
  kind: 'sql',
  id: 'audience_summary',
  name: 'Audience summary',
  description:
    'Per period (interval_type, UTC): audience impressions, unique visitors, average dwell time, and impressions by gender (female, male, unknown). media_id narrows to impressions in front of those files.',
  filters: { device: true, media: true, interval: true, timeOfDay: true },
  table: 'impressions',
  columns: [
    COLUMNS.period,
    { key: 'impressions', title: 'Impressions', type: 'integer', total: true, width: 10 },
    { key: 'visitors', title: 'Unique visitors', type: 'integer', width: 10 },
    { key: 'avg_dwell', title: 'Average dwell (s)', type: 'seconds', width: 10 },
    { key: 'female', title: 'Female', type: 'integer', total: true, width: 8 },
    { key: 'male', title: 'Male', type: 'integer', total: true, width: 8 },
    { key: 'unknown', title: 'Unknown', type: 'integer', total: true, width: 8 },
  ],
  chart: { title: 'Impressions per period', category: 'period', value: 'impressions', aggregate: 'sum' },
  digest: ['period', 'impressions', 'visitors', 'avg_dwell', 'female', 'male', 'unknown'],
  sql(req) {
    const { where, params } = scope(req, { media: 'file_id' });
    return {
      sql: `SELECT ${periodOf(req.interval)} AS period, toUInt64(count()) AS impressions,
       toUInt64(uniqExactIf(visitor_id, visitor_id != '')) AS visitors, round(avg(dwell_time), 3) AS avg_dwell,
       toUInt64(countIf(lower(gender) = 'female')) AS female, toUInt64(countIf(lower(gender) = 'male')) AS male,
       toUInt64(countIf(lower(gender) NOT IN ('female', 'male'))) AS unknown
FROM impressions FINAL
WHERE ${where}
GROUP BY period
ORDER BY period`,
      params,
    };
  },
};
