/** GraphQL of CSV import and export (the streamed and job-run ones are HTTP: http/datatables-http.ts). */
import { mutationPayload } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { exportRowsCsvText } from './export-rows.js';
import { importRowsCsv } from './import-rows.js';

export function importExportResolvers(rt: DataTablesRuntime): Resolvers {
  return {
    Query: {
      exportDataTableRows: (_, args, ctx) => exportRowsCsvText(rt, ctx.principal, args.tableId),
    },
    Mutation: {
      importDataTableRows: (_, a, ctx) => mutationPayload(() => importRowsCsv(rt, ctx.principal, a.input.tableId, a.input.csv)),
    },
  };
}
