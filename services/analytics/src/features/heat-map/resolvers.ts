/** Heat maps: impressions or events counted per rounded coordinate. */
import { resolveLimit } from '@pylon/kit';
import { toAnalyticsQuery } from '../../shared/analytics-args.js';
import { listOf, type ReadTable } from '../../shared/reads.js';
import { PRECISION, selectHeatMap } from './heat-map.queries.js';

export const heatMapReads: ReadTable = {
  heatMapData: (s, p, a) => selectHeatMap(s, 'impressions', toAnalyticsQuery(p, a), resolveLimit(a.precision, PRECISION, 'precision'), listOf(a)),
  eventHeatMapData: (s, p, a) => selectHeatMap(s, 'event_logs', toAnalyticsQuery(p, a), resolveLimit(a.precision, PRECISION, 'precision'), listOf(a)),
};
