import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/index.js';
import type { DataTable, DataTableRepository } from '../data-table.repository.js';
import { getDataTable } from '../use-cases/get-data-table.js';
import { listDataTables, type DataTablePageQuery } from '../use-cases/list-data-tables.js';

export function dataTablesResolvers(repo: DataTableRepository): GraphQLResolverMap<SubgraphContext> {
  return {
    Query: {
      dataTables: (_: unknown, args: DataTablePageQuery, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'DataTables_View');
        return listDataTables(repo, ctx.principal, args);
      },
      dataTable: (_: unknown, args: { tableId: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'DataTables_View');
        return getDataTable(repo, ctx.principal, args.tableId);
      },
    },
    DataTable: {
      columns: (t: DataTable) => t.columns ?? [],
      columnCount: (t: DataTable) => (t.columns ?? []).length,
      rowCount: (t: DataTable) => t.rowCount ?? 0,
      updatedAt: (t: DataTable) => isoSeconds(t.updatedAt),
    },
  };
}
