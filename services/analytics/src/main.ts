/**
 * Distributed mode: the analytics subgraph as its own process. With the embedded chDB driver
 * only this process may open the analytics data dir; fleets use ANALYTICS_DRIVER=clickhouse.
 */
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createAnalyticsSubgraph } from './app.js';

await runSubgraphProcess({
  name: 'analytics',
  needs: ['analytics'],
  build: ({ backends, tokens }) => createAnalyticsSubgraph({ analytics: backends.analytics!, tokens }),
});
