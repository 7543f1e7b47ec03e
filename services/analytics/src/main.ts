/**
 * Distributed mode: the analytics subgraph as its own process, running the telemetry ingest too
 * unless ANALYTICS_RUN_INGEST=false (then the telemetry-consumer role, ingest.main.ts, does).
 * With the embedded chDB driver only this process may open the analytics data dir, and an
 * in-process stream only carries this process's own telemetry: fleets use
 * ANALYTICS_DRIVER=clickhouse and STREAM_DRIVER=kafka.
 * Besides /graphql it serves the report files (http/reports-http.ts: GET /report, POST
 * /report/export), authenticated by the signed internal token like the datatables router, and
 * asks the devices and content subgraphs, as the caller, which ids are the caller's.
 */
import type { Router } from 'express';
import { createLogger, INTERNAL_TOKEN_HEADER } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createHttpReportDirectory } from './adapters/report-directory.http.js';
import { createAnalyticsSubgraph } from './app.js';
import { createReportsHttp } from './http/reports-http.js';
import { startIngest } from './ingest/ingest.js';
import { analyticsProcessEnv } from './config.js';

/** Built with the settings in `build`, mounted in `extend` (which is not handed them). */
let reports: Router | undefined;

await runSubgraphProcess({
  name: 'analytics',
  needs: ['analytics', 'stream'],
  env: analyticsProcessEnv,
  build: async ({ backends, tokens, env }) => {
    const directory = createHttpReportDirectory({ devices: { url: env.DEVICES_URL, tokens }, content: { url: env.CONTENT_URL, tokens } });
    reports = createReportsHttp(
      { analytics: backends.analytics!, directory },
      {
        authenticate: (req) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null),
        logger: createLogger({ level: env.LOG_LEVEL, name: 'analytics-reports' }),
      },
    );
    if (env.ANALYTICS_RUN_INGEST) {
      const ingest = await startIngest({
        stream: backends.stream!,
        analytics: backends.analytics!,
        logger: createLogger({ level: env.LOG_LEVEL, name: 'analytics-ingest' }),
      });
      backends.onClose(() => ingest.close());
      backends.checks.consumer = () => ingest.check();
    }
    return createAnalyticsSubgraph({ analytics: backends.analytics!, tokens, directory });
  },
  extend: (app) => {
    if (reports) app.use(reports);
  },
});
