import { listQuery, type FieldMap, type Filter, type ListArgs, type Principal, type Stored } from '@pylon/kit';
import type { GroupedItems } from '../content.repository.js';
import type { Grouped } from '../domain/group.js';

export type ListQuery = ListArgs;

/** Lists the caller's items of one area: argument filters AND where, sorted, offset, limited (kit listQuery). */
export function listItems<T extends Grouped>(
  area: GroupedItems<T>,
  fields: FieldMap,
  principal: Principal,
  q: ListQuery,
  opts: { anyOf?: Record<string, readonly string[] | null | undefined>; clauses?: Filter[] } = {},
): Promise<Stored<T>[]> {
  const { filter, options } = listQuery(q, fields, opts);
  return area.find(principal.accountId, filter, options);
}
