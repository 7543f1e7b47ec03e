/** GraphQL of a row's history: its versions, one version, and rolling a row back to one. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { getRowVersion, listRowVersions, rollbackRow } from './row-history.js';

export function rowHistoryResolvers(rt: DataTablesRuntime): Resolvers {
  return {
    Query: {
      dataTableRowVersions: (_, args, ctx) => listRowVersions(rt, ctx.principal, args.tableId, args.rowId, args),
      dataTableRowVersion: (_, args, ctx) => getRowVersion(rt, ctx.principal, args.tableId, args.rowId, args.version),
    },
    Mutation: {
      rollbackDataTableRow: (_, a, ctx) => mutationPayload(() => rollbackRow(rt, ctx.principal, a.input)),
    },
    DataTableRowVersion: {
      version: (v) => v.rev,
      updatedAt: (v) => isoSeconds(v.at ?? v.createdAt),
    },
  };
}
