import { badInput, resolveLimit, type Principal } from '@pylon/kit';
import { decodeContinuationToken, encodeContinuationToken, positionGone, type Position } from '../../domain/continuation-token.js';
import { TABLE_PAGE } from '../../domain/data-table.js';
import type { DataTable, DataTableRepository } from '../../shared/data-table.repository.js';

export interface DataTablePageQuery {
  pageSize?: number | null;
  continuationToken?: string | null;
  where?: unknown;
  order?: unknown;
}

export interface DataTablePage {
  data: DataTable[];
  continuationToken: string | null;
}

/**
 * One page of the caller's tables matching `where`, in `order` (default name, then id); keyset-paged,
 * so no page skips or repeats a table. A token holds the order it was made for and the sort values
 * of the page's last table; a token of another order is refused rather than read as a position in
 * this one.
 */
export async function listDataTables(repo: DataTableRepository, principal: Principal, q: DataTablePageQuery): Promise<DataTablePage> {
  const size = resolveLimit(q.pageSize, TABLE_PAGE, 'pageSize');
  if (size < 1) throw badInput('pageSize', 'pageSize must be at least 1');
  const query = repo.tableQuery(q);
  const paths = Object.keys(query.sort);
  // The store's keyset position covers the sort's fields, then id unless the sort has it.
  if (!paths.includes('id')) paths.push('id');
  const orderSig = paths.map((p) => `${p}:${query.sort[p] === -1 ? 'desc' : 'asc'}`).join(',');
  let after: Position | null = null;
  if (q.continuationToken) {
    const at = decodeContinuationToken(q.continuationToken, orderSig, paths.length);
    if ('ref' in at) {
      // A token naming the table (a long sort value): its position is read from the table.
      const table = (await repo.getTable(principal.accountId, at.ref)) as (DataTable & Record<string, unknown>) | null;
      if (!table) throw positionGone();
      after = paths.map((p) => positionValue(table[p]));
    } else after = at.position;
  }
  // One extra table tells whether another page follows.
  const found = await repo.listTables(principal.accountId, query, after, size + 1);
  const data = found.slice(0, size);
  const last = data.at(-1) as (DataTable & Record<string, unknown>) | undefined;
  const token =
    found.length > size && last
      ? encodeContinuationToken(
          orderSig,
          paths.map((p) => positionValue(last[p])),
        )
      : null;
  return { data, continuationToken: token };
}

/** A sort value as a token holds it: missing is null, as the store orders it. */
function positionValue(v: unknown): string | number | null {
  return typeof v === 'string' || typeof v === 'number' ? v : null;
}
