/**
 * Distributed mode: the analytics subgraph as its own process, running the telemetry ingest too
 * unless ANALYTICS_RUN_INGEST=false (then the telemetry-consumer role, ingest.main.ts, does).
 * With the embedded chDB driver only this process may open the analytics data dir, and an
 * in-process stream only carries this process's own telemetry: fleets use
 * ANALYTICS_DRIVER=clickhouse and STREAM_DRIVER=kafka.
 */
import { createLogger } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createAnalyticsSubgraph } from './app.js';
import { startIngest } from './ingest/ingest.js';
import { analyticsProcessEnv } from './ingest.config.js';

await runSubgraphProcess({
  name: 'analytics',
  needs: ['analytics', 'stream'],
  env: analyticsProcessEnv,
  build: async ({ backends, tokens, env }) => {
    if (!env.ANALYTICS_RUN_INGEST) return createAnalyticsSubgraph({ analytics: backends.analytics!, tokens });
    const ingest = await startIngest({
      stream: backends.stream!,
      analytics: backends.analytics!,
      logger: createLogger({ level: env.LOG_LEVEL, name: 'analytics-ingest' }),
    });
    backends.onClose(() => ingest.close());
    backends.checks.consumer = () => ingest.check();
    return createAnalyticsSubgraph({ analytics: backends.analytics!, tokens });
  },
});
