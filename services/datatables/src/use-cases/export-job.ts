/**
 * Large exports as jobs (GET /datatables/{id}/rows/export above EXPORT_JOB_THRESHOLD_ROWS, or with
 * `Prefer: respond-async`): the same CSV as the synchronous export (export-rows.ts: streamed in
 * chunks of 1000 rows, formula-safe) written to the blobs port through kit's JobFiles, with progress
 * (rows done / the table's row count). The finished job's result names the file; GET /jobs/{id}
 * adds a signed, expiring download link.
 *
 * A restart runs the export again from the start: the file's key is fixed by the job, so the
 * second run replaces whatever the first left (nothing: a blob is visible only once complete).
 * A cancelled or failed export leaves no file (cleanup discards it).
 */
import { pipeline } from 'node:stream/promises';
import { AppError, JobCancelled, principalOfJob, type Job, type JobContext, type JobPrincipal, type JobRunner } from '@pylon/kit';
import type { DataTablesRuntime } from '../runtime.js';
import { exportRowsCsv } from './export-rows.js';
import { getDataTable } from './get-data-table.js';

export const EXPORT_JOB_KIND = 'datatables.export';

export interface ExportJobInput {
  tableId: string;
  principal: JobPrincipal;
}

/** Progress is saved at most this often (each save is a document write); cancellation is seen at every chunk. */
const REPORT_EVERY_MS = 250;

export function registerExportJob(runner: JobRunner, rt: DataTablesRuntime): void {
  const files = runner.files;
  if (!files) return; // This process keeps no job files: exports stay synchronous.
  runner.register(
    EXPORT_JOB_KIND,
    async (ctx: JobContext) => {
      const input = ctx.job.input as unknown as ExportJobInput;
      const principal = principalOfJob(input.principal);
      const table = await getDataTable(rt.repo, principal, input.tableId);
      await ctx.report({ progress: { rowsDone: 0, rowsTotal: table.rowCount ?? null, rowsFailed: 0 } });
      let last = Date.now();
      let rows = 0;
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
          { filename: `${table.id.replace(/[^A-Za-z0-9_-]/g, '_')}.csv`, contentType: 'text/csv; charset=utf-8', ext: 'csv' },
          async (out) => pipeline(await exportRowsCsv(rt, principal, table.id, { progress }), out, { end: false }),
        );
        await ctx.report({ progress: { rowsDone: rows, rowsTotal: rows } });
        return { rows, file };
      } catch (e) {
        if (ctx.cancelled() || e instanceof JobCancelled) throw new JobCancelled();
        if (e instanceof AppError) throw e;
        rt.logger?.error({ err: e, jobId: ctx.job.id }, 'data table export job failed');
        throw new AppError('INTERNAL', 'the export could not be written');
      }
    },
    {
      view: 'DataTables_View',
      // Stopping one's own export needs no more than starting it.
      edit: 'DataTables_View',
      cleanup: (job: Job) => (job.state === 'succeeded' ? Promise.resolve() : files.discard(job.accountId, job.id)),
    },
  );
}
