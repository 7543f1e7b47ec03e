import { mergeResolvers, type AnalyticsStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { createSubgraph } from '@pylon/kit/serving';
import type { ReportDirectory } from './ports/report-directory.js';
import { readResolvers } from './shared/reads.js';
import { auditReads } from './features/audit/resolvers.js';
import { audienceFields, audienceReads } from './features/audience/resolvers.js';
import { deviceMetricFields, deviceMetricReads } from './features/device-metrics/resolvers.js';
import { eventFields, eventReads } from './features/events/resolvers.js';
import { heatMapReads } from './features/heat-map/resolvers.js';
import { logReads } from './features/logs/resolvers.js';
import { mediaImpressionFields, mediaImpressionReads } from './features/media-impressions/resolvers.js';
import { playStatFields, playStatReads } from './features/play-stats/resolvers.js';

export interface AnalyticsDeps {
  analytics: AnalyticsStore;
  tokens: InternalTokens;
  /** Device names for the records' `deviceName` (the same directory the reports use); absent: null names. */
  directory?: ReportDirectory;
}

/** The analytics subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createAnalyticsSubgraph(deps: AnalyticsDeps): Subgraph {
  const { analytics: store, directory } = deps;
  const reads = [logReads, auditReads, eventReads, audienceReads, heatMapReads, deviceMetricReads, playStatReads, mediaImpressionReads];
  const resolvers = mergeResolvers(
    { Query: readResolvers(store, directory, ...reads) },
    eventFields(),
    audienceFields(directory),
    deviceMetricFields(directory),
    playStatFields(directory),
    mediaImpressionFields(directory),
  );
  return createSubgraph({ name: 'analytics', tokens: deps.tokens, resolvers });
}
