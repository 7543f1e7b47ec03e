import { guardQuery, isoSeconds } from '@pylon/kit';
import type { DataTableRepository } from '../data-table.repository.js';
import { getDataTable } from '../use-cases/get-data-table.js';
import { listDataTables } from '../use-cases/list-data-tables.js';
import type { Resolvers } from './resolvers.generated.js';

export function dataTablesResolvers(repo: DataTableRepository): Resolvers {
  return {
    Query: {
      dataTables: (_, args, ctx) => {
        guardQuery(ctx.principal, 'dataTables');
        return listDataTables(repo, ctx.principal, args);
      },
      dataTable: (_, args, ctx) => {
        guardQuery(ctx.principal, 'dataTable');
        return getDataTable(repo, ctx.principal, args.tableId);
      },
    },
    DataTable: {
      columns: (t) => t.columns ?? [],
      columnCount: (t) => (t.columns ?? []).length,
      rowCount: (t) => t.rowCount ?? 0,
      updatedAt: (t) => isoSeconds(t.updatedAt),
    },
  };
}
