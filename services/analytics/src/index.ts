export { createAnalyticsSubgraph, type AnalyticsDeps } from './app.js';
export type { PingLog, PlayLog } from './domain/logs.js';
export { startIngest, type Ingest, type IngestOptions } from './ingest/ingest.js';
export { replayDeadLetters } from './ingest/dead-letters.js';
export { startCompaction, type Compaction } from './ingest/compaction.js';
export { createReportsHttp, type ReportsHttpOptions } from './http/reports-http.js';
export type { ReportsDeps } from './reports/export-report.js';
export type { ReportDirectory } from './reports/report-directory.js';
export { REPORT_EXPORT_JOB_KIND, registerReportExportJob } from './reports/export-job.js';
