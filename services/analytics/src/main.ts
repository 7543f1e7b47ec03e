/**
 * Distributed mode: the analytics subgraph as its own process, running the telemetry ingest too
 * unless ANALYTICS_RUN_INGEST=false (then the telemetry-consumer role, ingest.main.ts, does).
 * With the embedded chDB driver only this process may open the analytics data dir, and an
 * in-process stream only carries this process's own telemetry: fleets use
 * ANALYTICS_DRIVER=clickhouse and STREAM_DRIVER=kafka.
 * Besides /graphql it serves the report files (http/reports-http.ts: GET /report, POST
 * /report/export), authenticated by the signed internal token like the datatables router, and
 * asks the devices and content subgraphs, as the caller, which ids are the caller's. Large or
 * asked-for report exports run as jobs here (use-cases/report-export-job.ts; state in the documents store,
 * the file in the blob store), followed at GET /jobs/{id} and downloaded at GET /jobs/{id}/result
 * through the signed link (kit jobs-http.ts; no token there: the signature is the credential).
 */
import type { Request, Router } from 'express';
import { createJobsHttp, createLogger, INTERNAL_TOKEN_HEADER, JobFiles, jobFileSettingsFrom, JobRunner, jobSettingsFrom } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createHttpReportDirectory } from './adapters/report-directory.http.js';
import { createAnalyticsSubgraph } from './app.js';
import { createReportsHttp } from './features/reports/http/reports-http.js';
import { registerReportExportJob } from './features/reports/report-export-job.js';
import { startIngest } from './workers/ingest.js';
import { analyticsProcessEnv } from './config.js';

/** Built with the settings in `build`, mounted in `extend` (which is not handed them). */
let reports: Router | undefined;
let jobs: JobRunner | undefined;

await runSubgraphProcess({
  name: 'analytics',
  needs: ['analytics', 'stream', 'documents', 'blobs'],
  env: analyticsProcessEnv,
  build: async ({ backends, tokens, env }) => {
    const directory = createHttpReportDirectory({
      devices: { url: env.DEVICES_URL, tokens },
      content: { url: env.CONTENT_URL, tokens },
      scheduling: { url: env.SCHEDULING_URL, tokens },
    });
    const logger = createLogger({ level: env.LOG_LEVEL, name: 'analytics-reports' });
    const files = new JobFiles(backends.blobs!, backends.documents!, env.SIGNAGE_INTERNAL_SECRET, jobFileSettingsFrom(env), logger);
    jobs = new JobRunner(backends.documents!, jobSettingsFrom(env), logger, files);
    registerReportExportJob(jobs, { analytics: backends.analytics!, directory, logger });
    reports = createReportsHttp(
      { analytics: backends.analytics!, directory },
      {
        authenticate: (req) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null),
        logger,
        jobs: { runner: jobs, thresholdRows: env.REPORT_JOB_THRESHOLD_ROWS },
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
  extend: (app, { tokens, logger, onClose }) => {
    if (reports) app.use(reports);
    const runner = jobs!;
    app.use(createJobsHttp(runner, { authenticate: (req: Request) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null) }));
    onClose(() => runner.close());
    // Report jobs a previous run left unfinished run again; finished files are swept after their retention.
    void runner.resumeAll().catch((err: unknown) => logger.error({ err }, 'unfinished jobs were not resumed'));
  },
});
