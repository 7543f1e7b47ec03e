import { AppError, isoSeconds, JsonScalar, mutationPayload, resultFile, type Job, type JobFiles } from '@pylon/kit';
import type { DataTablesRuntime } from '../runtime.js';
import { getDataTable } from '../use-cases/get-data-table.js';
import { listDataTables } from '../use-cases/list-data-tables.js';
import { createDataTable, deleteDataTable, updateDataTable } from '../use-cases/manage-tables.js';
import { batchCreateRows, batchDeleteRows } from '../use-cases/row-batches.js';
import { getRowVersion, listRowVersions, rollbackRow } from '../use-cases/row-history.js';
import { createRow, deleteRow, updateRow } from '../use-cases/row-writes.js';
import { exportRowsCsvText } from '../use-cases/export-rows.js';
import { importRowsCsv } from '../use-cases/import-rows.js';
import { getRow, listRows } from '../use-cases/read-rows.js';
import { reorderRows } from '../use-cases/reorder-rows.js';
import type { Resolvers } from './resolvers.generated.js';

/** A job's result without the internals of its file (the blob key). */
function resultView(job: Job): Record<string, unknown> | null {
  const file = resultFile(job);
  if (!file || !job.result) return job.result;
  return { ...job.result, file: { filename: file.filename, contentType: file.contentType, bytes: file.bytes, keptUntil: file.expiresAt } };
}

/** A job as GraphQL answers it (kit jobs.ts record; state in SCREAMING_CASE; a file's signed link). */
function jobView(job: Job, files: JobFiles | undefined) {
  const link = files?.link(job) ?? null;
  return {
    id: job.id,
    kind: job.kind,
    state: job.state.toUpperCase() as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED',
    progress: job.progress,
    errors: job.errors,
    result: resultView(job),
    resultLink: link
      ? { url: link.url, expiresOn: isoSeconds(link.expiresAt), filename: link.filename, contentType: link.contentType, bytes: link.bytes }
      : null,
    error: job.error,
    createdOn: isoSeconds(job.createdAt),
    startedOn: job.startedAt ? isoSeconds(job.startedAt) : null,
    finishedOn: job.finishedAt ? isoSeconds(job.finishedAt) : null,
    link: `/jobs/${job.id}`,
  };
}

export function dataTablesResolvers(rt: DataTablesRuntime): Resolvers {
  const repo = rt.repo;
  const jobs = () => {
    if (!rt.jobs) throw new AppError('NOT_FOUND', 'this service runs no jobs', { field: 'id' });
    return rt.jobs;
  };
  return {
    JSON: JsonScalar,
    Query: {
      job: async (_, args, ctx) => {
        return jobView(await jobs().read(ctx.principal, args.id), rt.jobs?.files);
      },
      dataTables: (_, args, ctx) => {
        return listDataTables(repo, ctx.principal, args);
      },
      dataTable: (_, args, ctx) => {
        return getDataTable(repo, ctx.principal, args.tableId);
      },
      dataTableRows: (_, args, ctx) => {
        return listRows(rt, ctx.principal, args);
      },
      dataTableRow: (_, args, ctx) => {
        return getRow(rt, ctx.principal, args.tableId, args.rowId);
      },
      exportDataTableRows: (_, args, ctx) => {
        return exportRowsCsvText(rt, ctx.principal, args.tableId);
      },
      dataTableRowVersions: (_, args, ctx) => {
        return listRowVersions(rt, ctx.principal, args.tableId, args.rowId, args);
      },
      dataTableRowVersion: (_, args, ctx) => {
        return getRowVersion(rt, ctx.principal, args.tableId, args.rowId, args.version);
      },
    },
    Mutation: {
      cancelJob: (_, a, ctx) => {
        return mutationPayload(async () => ({ job: jobView(await jobs().cancelAs(ctx.principal, a.id), rt.jobs?.files) }));
      },
      createDataTable: (_, a, ctx) => {
        return mutationPayload(async () => ({ table: await createDataTable(rt, ctx.principal, a.input) }));
      },
      updateDataTable: (_, a, ctx) => {
        return mutationPayload(() => updateDataTable(rt, ctx.principal, a.input));
      },
      deleteDataTable: (_, a, ctx) => {
        return mutationPayload(() => deleteDataTable(rt, ctx.principal, a.tableId));
      },
      createDataTableRow: (_, a, ctx) => {
        return mutationPayload(async () => ({ row: await createRow(rt, ctx.principal, a.input) }));
      },
      updateDataTableRow: (_, a, ctx) => {
        return mutationPayload(async () => ({ row: await updateRow(rt, ctx.principal, a.input) }));
      },
      deleteDataTableRow: (_, a, ctx) => {
        return mutationPayload(() => deleteRow(rt, ctx.principal, a));
      },
      batchCreateDataTableRows: (_, a, ctx) => {
        return mutationPayload(() => batchCreateRows(rt, ctx.principal, a.input));
      },
      batchDeleteDataTableRows: (_, a, ctx) => {
        return mutationPayload(() => batchDeleteRows(rt, ctx.principal, a.input));
      },
      importDataTableRows: (_, a, ctx) => {
        return mutationPayload(() => importRowsCsv(rt, ctx.principal, a.input.tableId, a.input.csv));
      },
      reorderDataTableRows: (_, a, ctx) => {
        return mutationPayload(() => reorderRows(rt, ctx.principal, a.input));
      },
      rollbackDataTableRow: (_, a, ctx) => {
        return mutationPayload(() => rollbackRow(rt, ctx.principal, a.input));
      },
    },
    DataTable: {
      columns: (t) => t.columns ?? [],
      columnCount: (t) => (t.columns ?? []).length,
      rowCount: (t) => t.rowCount ?? 0,
      updatedAt: (t) => isoSeconds(t.updatedAt),
    },
    DataTableRowList: {
      totalCount: (p) => p.totalCount(),
    },
    DataTableRow: {
      version: (r) => r.rev,
      updatedAt: (r) => isoSeconds(r.updatedAt),
    },
    DataTableRowVersion: {
      version: (v) => v.rev,
      updatedAt: (v) => isoSeconds(v.at ?? v.createdAt),
    },
  };
}
