import { notFound, type Principal } from '@pylon/kit';
import type { DataTable, DataTableRepository } from '../../shared/data-table.repository.js';

/** The caller's table; NOT_FOUND for unknown ids and for other accounts' tables alike. */
export async function getDataTable(repo: DataTableRepository, principal: Principal, tableId: string): Promise<DataTable> {
  const table = await repo.getTable(principal.accountId, tableId);
  if (!table) throw notFound('data table', tableId);
  return table;
}
