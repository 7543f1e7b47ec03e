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
import { registerFileJob, type JobPrincipal, type JobRunner } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import { exportRowsCsv } from './export-rows.js';
import { getDataTable } from '../tables/get-data-table.js';

export const EXPORT_JOB_KIND = 'datatables.export';

export interface ExportJobInput {
  tableId: string;
  principal: JobPrincipal;
}

export function registerExportJob(runner: JobRunner, rt: DataTablesRuntime): void {
  // Where the process keeps no job files, nothing is registered: exports stay synchronous. Stopping
  // one's own export needs no more than starting it.
  registerFileJob<ExportJobInput>(runner, EXPORT_JOB_KIND, { view: 'DataTables_View', edit: 'DataTables_View' }, async (input, principal, ctx) => {
    const table = await getDataTable(rt.repo, principal, input.tableId);
    await ctx.report({ progress: { rowsDone: 0, rowsTotal: table.rowCount ?? null, rowsFailed: 0 } });
    return {
      tenant: principal.accountId,
      file: { filename: `${table.id.replace(/[^A-Za-z0-9_-]/g, '_')}.csv`, contentType: 'text/csv; charset=utf-8', ext: 'csv' },
      produce: async (out, progress) => pipeline(await exportRowsCsv(rt, principal, table.id, { progress }), out, { end: false }),
      logger: rt.logger,
      logMessage: 'data table export job failed',
      failure: 'the export could not be written',
    };
  });
}
