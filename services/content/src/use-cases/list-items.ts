import { orderToSort, resolveLimit, whereToFilter, type FieldMap, type Filter, type Principal, type Stored } from '@pylon/kit';
import type { GroupedItems } from '../content.repository.js';
import type { Grouped } from '../domain/group.js';

const OFFSET = { default: 0, max: 10_000_000 };

export interface ListQuery {
  limit?: number | null;
  /** Items to skip (REST page * take). */
  offset?: number | null;
  where?: unknown;
  order?: unknown;
}

/**
 * Lists the caller's items of one area: `clauses` (from query arguments) AND where, sorted by
 * order (default: name, then id), `offset` skipped, cut to limit (default 100, at most 1000).
 */
export function listItems<T extends Grouped>(
  area: GroupedItems<T>,
  fields: FieldMap,
  principal: Principal,
  q: ListQuery,
  clauses: Filter[] = [],
): Promise<Stored<T>[]> {
  const where = whereToFilter(q.where, fields);
  const all = Object.keys(where).length ? [...clauses, where] : clauses;
  const filter: Filter = all.length === 0 ? {} : all.length === 1 ? all[0]! : { $and: all };
  const limit = resolveLimit(q.limit);
  const skip = resolveLimit(q.offset, OFFSET, 'offset');
  const sort = orderToSort(q.order, fields, { name: 1, id: 1 });
  return area.find(principal.accountId, filter, { sort, limit, ...(skip ? { skip } : {}) });
}
