/** Audience measurement: impressions and per-period audience metrics. */
import { badInput } from '@pylon/kit';
import { toAnalyticsQuery, toSeriesQuery } from '../../shared/analytics-args.js';
import { device, deviceNameField } from '../../shared/entity-fields.js';
import { listedDevices, listOf, type ReadTable } from '../../shared/reads.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { AUDIENCE_METRIC_FIELDS, filteredSeries } from '../../shared/series-filter.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { selectAudienceMetrics, selectImpressions } from './audience.queries.js';

export const audienceReads: ReadTable = {
  impressions: (s, p, a) => {
    if ((a.gender?.length ?? 0) > 10) throw badInput('gender', 'at most 10 values');
    if ((a.ageRange?.length ?? 0) > 10) throw badInput('ageRange', 'at most 10 values');
    return selectImpressions(s, toAnalyticsQuery(p, a), { genders: [...(a.gender ?? [])], ageRanges: [...(a.ageRange ?? [])] }, listOf(a));
  },
  audienceMetrics: (s, p, a, o) => {
    const q = toSeriesQuery(p, a);
    const devices = listedDevices(q, o.owned);
    return filteredSeries(q, a, AUDIENCE_METRIC_FIELDS, (r) => selectAudienceMetrics(s, r, a.includeDwellTime ?? false, undefined, { now: o.now, devices }));
  },
};

export const audienceFields = (directory?: ReportDirectory): Resolvers => ({
  Impression: { device },
  AudienceMetric: { device, deviceName: deviceNameField(directory) },
});
