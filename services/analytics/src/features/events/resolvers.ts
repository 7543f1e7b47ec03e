/** Player events: the log, per-period counts and the flow between events. */
import { device } from '../../shared/entity-fields.js';
import { toAnalyticsQuery, toSeriesQuery } from '../../shared/analytics-args.js';
import { listOf, type ReadTable } from '../../shared/reads.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { EVENT_METRIC_FIELDS, filteredSeries } from '../../shared/series-filter.js';
import { selectEventFlow, selectEventLogs, selectEventMetrics } from './event.queries.js';

export const eventReads: ReadTable = {
  eventLogs: (s, p, a) => selectEventLogs(s, toAnalyticsQuery(p, a), listOf(a)),
  eventMetrics: (s, p, a) => filteredSeries(toSeriesQuery(p, a), a, EVENT_METRIC_FIELDS, (q) => selectEventMetrics(s, q, a.groupByEvent ?? false)),
  eventFlow: (s, p, a) => selectEventFlow(s, toAnalyticsQuery(p, a), listOf(a)),
};

export const eventFields = (): Resolvers => ({ EventLog: { device } });
