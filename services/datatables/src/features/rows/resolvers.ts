/** GraphQL of a table's rows: a page, one row, their writes (single, batch, reorder) and the row types. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { getRow, listRows } from './read-rows.js';
import { reorderRows } from './reorder-rows.js';
import { batchCreateRows, batchDeleteRows } from './row-batches.js';
import { createRow, deleteRow, updateRow } from './row-writes.js';

export function rowResolvers(rt: DataTablesRuntime): Resolvers {
  return {
    Query: {
      dataTableRows: (_, args, ctx) => listRows(rt, ctx.principal, args),
      dataTableRow: (_, args, ctx) => getRow(rt, ctx.principal, args.tableId, args.rowId),
    },
    Mutation: {
      createDataTableRow: (_, a, ctx) => mutationPayload(async () => ({ row: await createRow(rt, ctx.principal, a.input) })),
      updateDataTableRow: (_, a, ctx) => mutationPayload(async () => ({ row: await updateRow(rt, ctx.principal, a.input) })),
      deleteDataTableRow: (_, a, ctx) => mutationPayload(() => deleteRow(rt, ctx.principal, a)),
      batchCreateDataTableRows: (_, a, ctx) => mutationPayload(() => batchCreateRows(rt, ctx.principal, a.input)),
      batchDeleteDataTableRows: (_, a, ctx) => mutationPayload(() => batchDeleteRows(rt, ctx.principal, a.input)),
      reorderDataTableRows: (_, a, ctx) => mutationPayload(() => reorderRows(rt, ctx.principal, a.input)),
    },
    DataTableRowList: {
      totalCount: (p) => p.totalCount(),
    },
    DataTableRow: {
      version: (r) => r.rev,
      updatedAt: (r) => isoSeconds(r.updatedAt),
    },
  };
}
