/** Opportunities to see per file and per device and file. */
import { toAnalyticsQuery } from '../../shared/analytics-args.js';
import { device, deviceNameField, file } from '../../shared/entity-fields.js';
import { listOf, type ReadTable } from '../../shared/reads.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { selectDeviceMediaImpressions, selectMediaImpressions } from './ots.queries.js';

export const mediaImpressionReads: ReadTable = {
  mediaImpressions: (s, p, a) => selectMediaImpressions(s, toAnalyticsQuery(p, a), listOf(a)),
  deviceMediaImpressions: (s, p, a) => selectDeviceMediaImpressions(s, toAnalyticsQuery(p, a), listOf(a)),
};

export const mediaImpressionFields = (directory?: ReportDirectory): Resolvers => ({
  MediaImpression: { file },
  DeviceMediaImpression: { device, file, deviceName: deviceNameField(directory) },
});
