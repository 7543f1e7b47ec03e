/**
 * Imports over IMPORT_JOB_THRESHOLD_BYTES run as jobs (kit jobs.ts): the HTTP layer spools the
 * upload into the jobs directory (an .xlsx is pre-scanned there, so a bomb is a 400) and answers 202; this handler streams it into the table (CSV
 * through the parser, .xlsx through exceljs's streaming reader: memory stays flat) and reports
 * after every committed chunk of 1000 rows: progress, the new row errors, and a checkpoint (the
 * last line committed).
 *
 * Resume: a job the process left running starts again from its checkpoint. Its rows have ids
 * derived from (job, line), so the one chunk that may have been committed after the last
 * checkpoint is recognised and not written twice: a restarted import ends with each line imported
 * exactly once. The spooled file is removed when the job finishes (any end but a process stop).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import yauzl from 'yauzl';
import { POLICIES, type Job, type JobContext, type JobRunner, type Policy, type Principal } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import { importRowsCsv } from './import-rows.js';
import { importRowsXlsx } from './import-xlsx.js';

export const IMPORT_JOB_KIND = 'datatables.import';

export interface ImportJobInput {
  tableId: string;
  /** The spooled upload (in the jobs directory). */
  path: string;
  format: 'csv' | 'xlsx';
  /** Who submitted it: the job writes as them, with the policies they had. */
  principal: Pick<Principal, 'accountId' | 'userId' | 'userName' | 'roles' | 'policies' | 'isOwner'>;
}

/** A row id fixed by the job and the line: a second run of the same job writes the same ids. */
export const jobRowId = (jobId: string, line: number) => `j${createHash('sha256').update(`${jobId}:${line}`).digest('base64url').slice(0, 22)}`;

/** Data records in a CSV file (one fast pass of the parser), for the progress total. */
async function countCsvRecords(path: string): Promise<number> {
  let n = -1; // the header
  const parser = createReadStream(path).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1024 * 1024 }));
  for await (const _ of parser) n++;
  return Math.max(0, n);
}

/** Rows of the first worksheet from its <dimension ref="A1:D1000001"/> (header excluded); null when absent. */
async function xlsxRowCount(path: string): Promise<number | null> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, z) => (err || !z ? reject(err ?? new Error('unreadable')) : resolve(z))),
  );
  return new Promise((resolve) => {
    let done = false;
    const end = (v: number | null) => {
      if (done) return;
      done = true;
      zip.close();
      resolve(v);
    };
    zip.on('entry', (e: yauzl.Entry) => {
      if (!/^xl\/worksheets\/sheet1\.xml$/i.test(e.fileName)) return zip.readEntry();
      zip.openReadStream(e, (err, stream) => {
        if (err || !stream) return end(null);
        let head = '';
        stream.on('data', (c: Buffer) => {
          head += c.toString('utf8');
          const m = /<dimension ref="[A-Z]+\d+:[A-Z]+(\d+)"/.exec(head);
          if (m || head.length > 8192) {
            stream.destroy();
            end(m ? Math.max(0, Number(m[1]) - 1) : null);
          }
        });
        stream.on('error', () => end(null));
        stream.on('end', () => end(null));
      });
    });
    zip.on('end', () => end(null));
    zip.on('error', () => end(null));
    zip.readEntry();
  });
}

/** The rows a spooled upload holds, for the job's progress total (null when it cannot tell). */
export async function importRowsTotal(path: string, format: 'csv' | 'xlsx'): Promise<number | null> {
  return (format === 'csv' ? countCsvRecords(path) : xlsxRowCount(path)).catch(() => null);
}

export function registerImportJob(runner: JobRunner, rt: DataTablesRuntime): void {
  runner.register(
    IMPORT_JOB_KIND,
    async (ctx: JobContext) => {
      const input = ctx.job.input as unknown as ImportJobInput;
      const principal: Principal = { ...input.principal, policies: input.principal.policies.filter((p): p is Policy => POLICIES.includes(p)), via: 'internal' };
      const checkpoint = (ctx.job.checkpoint ?? {}) as { line?: number };
      if (ctx.job.progress.rowsTotal === null) {
        const total = await importRowsTotal(input.path, input.format);
        if (total !== null) await ctx.report({ progress: { rowsTotal: total } });
      }
      const options = {
        ...(checkpoint.line ? { afterLine: checkpoint.line } : {}),
        rowId: (line: number) => jobRowId(ctx.job.id, line),
        committed: async (c: { line: number; imported: number; failed: number; errors: import('@pylon/kit').JobRowError[] }) => {
          // Counts of a resumed run continue those of the runs before it.
          const base = ctx.job.checkpoint as { imported?: number; failed?: number } | null;
          const imported = (base?.imported ?? 0) + c.imported;
          const failed = (base?.failed ?? 0) + c.failed;
          await ctx.report({ progress: { rowsDone: imported + failed, rowsFailed: failed }, errors: c.errors, checkpoint: { line: c.line, imported, failed } });
        },
      };
      const result =
        input.format === 'csv'
          ? await importRowsCsv(rt, principal, input.tableId, createReadStream(input.path), options)
          : await importRowsXlsx(rt, principal, input.tableId, input.path, { ...options, prescanned: true });
      const base = ctx.job.checkpoint as { imported?: number; failed?: number } | null;
      return { imported: (base?.imported ?? 0) + result.imported, failed: (base?.failed ?? 0) + result.failed };
    },
    { view: 'DataTables_View', edit: 'DataTables_Edit', cleanup: (job: Job) => rm(String(job.input.path), { force: true }) },
  );
}

/** Bytes of a spooled file. */
export const fileSize = async (path: string) => (await stat(path)).size;
