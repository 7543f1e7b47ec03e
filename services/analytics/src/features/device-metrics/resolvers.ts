/** Device health per period: uptime, CPU, memory and disk. */
import { toSeriesQuery } from '../../shared/analytics-args.js';
import { device, deviceNameField } from '../../shared/entity-fields.js';
import { listedDevices, type ReadTable } from '../../shared/reads.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { DEVICE_METRIC_FIELDS, filteredSeries } from '../../shared/series-filter.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { selectDeviceMetrics } from './device-metrics.queries.js';

export const deviceMetricReads: ReadTable = {
  deviceMetrics: (s, p, a, o) => {
    const q = toSeriesQuery(p, a);
    const devices = listedDevices(q, o.owned);
    const off = o.powerOff?.(q.range.from.getTime(), q.range.to.getTime());
    return filteredSeries(q, a, DEVICE_METRIC_FIELDS, (r) => selectDeviceMetrics(s, r, undefined, { now: o.now, devices, ...(off ? { off } : {}) }));
  },
};

export const deviceMetricFields = (directory?: ReportDirectory): Resolvers => ({ DeviceMetric: { device, deviceName: deviceNameField(directory) } });
