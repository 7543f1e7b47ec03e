/**
 * Report exports as jobs (POST /report/export with `Prefer: respond-async`, or automatically when
 * the report's scope holds more than REPORT_JOB_THRESHOLD_ROWS records): the same file as the
 * streamed answer (export-report.ts: CSV, XLSX or PDF, same digest) written to the blobs port
 * through kit's JobFiles, with progress (records read). GET /jobs/{id} then gives a signed,
 * expiring download link. The request is checked in full (policy, body, every id) before the 202,
 * and again when the job runs (the caller's ids may have gone meanwhile).
 *
 * A restart runs the export again from the start (the file's key is fixed by the job). A cancelled
 * or failed export leaves no file.
 */
import { registerFileJob, type JobPrincipal, type JobRunner } from '@pylon/kit';
import { prepareReportExport, type ReportsDeps } from './export-report.js';

export const REPORT_EXPORT_JOB_KIND = 'analytics.report-export';

export interface ReportExportJobInput {
  /** The ReportExportPostBody as it was checked. */
  body: unknown;
  principal: JobPrincipal;
}

export function registerReportExportJob(runner: JobRunner, deps: ReportsDeps): void {
  const registered = registerFileJob<ReportExportJobInput>(
    runner,
    REPORT_EXPORT_JOB_KIND,
    { view: 'Analytics_View', edit: 'Analytics_View' },
    async (input, principal) => {
      const report = await prepareReportExport(deps, principal, input.body);
      return {
        tenant: principal.accountId,
        file: { filename: report.filename, contentType: report.contentType, ext: report.ext },
        produce: (out, progress) => report.write(out, { progress }),
        logger: deps.logger,
        logMessage: 'report export job failed',
        failure: 'the report could not be written',
      };
    },
  );
  if (!registered) throw new Error('report export jobs need the runner to keep job files');
}
