import { createSubgraph, type AnalyticsStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { analyticsResolvers } from './graphql/resolvers.js';
import type { ReportDirectory } from './ports/report-directory.js';

export interface AnalyticsDeps {
  analytics: AnalyticsStore;
  tokens: InternalTokens;
  /** Device names for the records' `deviceName` (the same directory the reports use); absent: null names. */
  directory?: ReportDirectory;
}

/** The analytics subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createAnalyticsSubgraph(deps: AnalyticsDeps): Subgraph {
  return createSubgraph({ name: 'analytics', tokens: deps.tokens, resolvers: analyticsResolvers(deps.analytics, deps.directory) });
}
