import { badInput, resolveLimit, type Principal } from '@pylon/kit';
import { decodeContinuationToken, encodeContinuationToken } from '../domain/continuation-token.js';
import { TABLE_PAGE } from '../domain/data-table.js';
import type { DataTable, DataTableRepository } from '../repositories/data-table.repository.js';

export interface DataTablePageQuery {
  pageSize?: number | null;
  continuationToken?: string | null;
}

export interface DataTablePage {
  data: DataTable[];
  continuationToken: string | null;
}

/** One page of the caller's tables in (name, id) order; keyset-paged, so no page skips or repeats a table. */
export async function listDataTables(repo: DataTableRepository, principal: Principal, q: DataTablePageQuery): Promise<DataTablePage> {
  const size = resolveLimit(q.pageSize, TABLE_PAGE, 'pageSize');
  if (size < 1) throw badInput('pageSize', 'pageSize must be at least 1');
  const after = q.continuationToken ? (decodeContinuationToken(q.continuationToken, 2) as [string, string]) : null;
  // One extra row tells whether another page follows.
  const found = await repo.listTables(principal.accountId, after, size + 1);
  const data = found.slice(0, size);
  const last = data.at(-1);
  return { data, continuationToken: found.length > size && last ? encodeContinuationToken([last.name, last.id]) : null };
}
