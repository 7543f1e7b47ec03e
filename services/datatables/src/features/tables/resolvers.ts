/** GraphQL of data tables themselves: the list, one table, their writes and the DataTable type. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { getDataTable } from './get-data-table.js';
import { listDataTables } from './list-data-tables.js';
import { createDataTable, deleteDataTable, updateDataTable } from './manage-tables.js';

export function tableResolvers(rt: DataTablesRuntime): Resolvers {
  return {
    Query: {
      dataTables: (_, args, ctx) => listDataTables(rt.repo, ctx.principal, args),
      dataTable: (_, args, ctx) => getDataTable(rt.repo, ctx.principal, args.tableId),
    },
    Mutation: {
      createDataTable: (_, a, ctx) => mutationPayload(async () => ({ table: await createDataTable(rt, ctx.principal, a.input) })),
      updateDataTable: (_, a, ctx) => mutationPayload(() => updateDataTable(rt, ctx.principal, a.input)),
      deleteDataTable: (_, a, ctx) => mutationPayload(() => deleteDataTable(rt, ctx.principal, a.tableId)),
    },
    DataTable: {
      columns: (t) => t.columns ?? [],
      columnCount: (t) => (t.columns ?? []).length,
      rowCount: (t) => t.rowCount ?? 0,
      updatedAt: (t) => isoSeconds(t.updatedAt),
    },
  };
}
