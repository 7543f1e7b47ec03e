export { createAnalyticsSubgraph, type AnalyticsDeps } from './app.js';
export type { PingLog, PlayLog } from './domain/logs.js';
export { startIngest, type Ingest, type IngestOptions } from './workers/ingest.js';
export { replayDeadLetters } from './workers/dead-letters.js';
export { startCompaction, type Compaction } from './workers/compaction.js';
export { createReportsHttp, type ReportsHttpOptions } from './features/reports/http/reports-http.js';
export type { ReportsDeps } from './features/reports/export-report.js';
export type { ReportDirectory } from './ports/report-directory.js';
export { REPORT_EXPORT_JOB_KIND, registerReportExportJob } from './features/reports/report-export-job.js';
