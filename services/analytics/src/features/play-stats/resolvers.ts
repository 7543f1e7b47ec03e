/** Proof of play: plays per file, per device, per both, and per period. */
import { toAnalyticsQuery, toSeriesQuery } from '../../shared/analytics-args.js';
import { device, deviceNameField, file } from '../../shared/entity-fields.js';
import { listOf, type ReadTable } from '../../shared/reads.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { filteredSeries, PLAY_STAT_BY_TIME_FIELDS } from '../../shared/series-filter.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { selectDeviceMediaPlayStats, selectDevicePlayStats, selectMediaPlayStats, selectPlayStatsByTime } from './play-stats.queries.js';

export const playStatReads: ReadTable = {
  mediaPlayStats: (s, p, a) => selectMediaPlayStats(s, toAnalyticsQuery(p, a), listOf(a)),
  devicePlayStats: (s, p, a) => selectDevicePlayStats(s, toAnalyticsQuery(p, a), listOf(a)),
  deviceMediaPlayStats: (s, p, a) => selectDeviceMediaPlayStats(s, toAnalyticsQuery(p, a), listOf(a)),
  playStatsByTime: (s, p, a) => filteredSeries(toSeriesQuery(p, a), a, PLAY_STAT_BY_TIME_FIELDS, (q) => selectPlayStatsByTime(s, q, a.groupByFile ?? false)),
};

export const playStatFields = (directory?: ReportDirectory): Resolvers => {
  const deviceName = deviceNameField(directory);
  return { MediaPlayStat: { file }, DevicePlayStat: { device, deviceName }, DeviceMediaPlayStat: { device, file, deviceName } };
};
