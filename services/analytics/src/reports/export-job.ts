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
import { AppError, JobCancelled, principalOfJob, type Job, type JobContext, type JobPrincipal, type JobRunner } from '@pylon/kit';
import { prepareReportExport, type ReportsDeps } from './export-report.js';

export const REPORT_EXPORT_JOB_KIND = 'analytics.report-export';

export interface ReportExportJobInput {
  /** The ReportExportPostBody as it was checked. */
  body: unknown;
  principal: JobPrincipal;
}

/** Progress is saved at most this often (each save is a document write); cancellation is seen at every chunk. */
const REPORT_EVERY_MS = 250;

export function registerReportExportJob(runner: JobRunner, deps: ReportsDeps): void {
  const files = runner.files;
  if (!files) throw new Error('report export jobs need the runner to keep job files');
  runner.register(
    REPORT_EXPORT_JOB_KIND,
    async (ctx: JobContext) => {
      const input = ctx.job.input as unknown as ReportExportJobInput;
      const principal = principalOfJob(input.principal);
      const report = await prepareReportExport(deps, principal, input.body);
      let rows = 0;
      let last = Date.now();
      const progress = async (done: number) => {
        rows = done;
        if (ctx.cancelled()) throw new JobCancelled();
        if (Date.now() - last < REPORT_EVERY_MS) return;
        last = Date.now();
        await ctx.report({ progress: { rowsDone: done } });
      };
      try {
        const file = await files.write(
          principal.accountId,
          ctx.job.id,
          { filename: report.filename, contentType: report.contentType, ext: report.ext },
          (out) => report.write(out, { progress }),
        );
        await ctx.report({ progress: { rowsDone: rows, rowsTotal: rows } });
        return { rows, file };
      } catch (e) {
        if (ctx.cancelled() || e instanceof JobCancelled) throw new JobCancelled();
        if (e instanceof AppError) throw e;
        deps.logger?.error({ err: e, jobId: ctx.job.id }, 'report export job failed');
        throw new AppError('INTERNAL', 'the report could not be written');
      }
    },
    {
      view: 'Analytics_View',
      edit: 'Analytics_View',
      cleanup: (job: Job) => (job.state === 'succeeded' ? Promise.resolve() : files.discard(job.accountId, job.id)),
    },
  );
}
