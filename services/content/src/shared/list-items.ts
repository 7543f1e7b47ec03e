import { listQuery, STAMP_FIELDS, storedFields, type FieldMap, type Filter, type ListArgs, type Principal, type Stored } from '@pylon/kit';
import type { ContentRepository, GroupedItems } from './content.repository.js';
import type { Grouped } from '../domain/group.js';

export type ListQuery = ListArgs;

/** The fields every grouped item with dates has (playlists, templates), as their filters and sorts map them. */
export const GROUPED_FIELDS: FieldMap = {
  tags: { path: 'tags', kind: 'stringList' },
  ...storedFields('string', ['groupId', 'groupName']),
  ...STAMP_FIELDS,
};

/** Filters beside `where`: each anyOf path matches any listed value; clauses are ANDed. */
export interface ItemFilters {
  anyOf?: Record<string, readonly string[] | null | undefined>;
  clauses?: Filter[];
}

/** Lists the caller's items of one area: argument filters AND where, sorted, offset, limited (kit listQuery). */
export function listItems<T extends Grouped>(
  area: GroupedItems<T>,
  fields: FieldMap,
  principal: Principal,
  q: ListQuery,
  opts: ItemFilters = {},
): Promise<Stored<T>[]> {
  const { filter, options } = listQuery(q, fields, opts);
  return area.find(principal.accountId, filter, options);
}

/** How many items listItems would return with the same filters, without limit or offset: exact, the caller's account only. */
export function countItems<T extends Grouped>(
  area: GroupedItems<T>,
  fields: FieldMap,
  principal: Principal,
  q: ListQuery,
  opts: ItemFilters = {},
): Promise<number> {
  const { filter } = listQuery({ where: q.where }, fields, opts);
  return area.count(principal.accountId, filter);
}

/** The list and count reads of an area filtered by `where` alone (playlists, templates). */
export function areaReads<T extends Grouped>(areaOf: (repo: ContentRepository) => GroupedItems<T>, fields: FieldMap) {
  return {
    list: (repo: ContentRepository, principal: Principal, q: ListQuery): Promise<Stored<T>[]> => listItems(areaOf(repo), fields, principal, q),
    /** How many items `list` would return with the same `where` (no limit, no offset). */
    count: (repo: ContentRepository, principal: Principal, q: ListQuery): Promise<number> => countItems(areaOf(repo), fields, principal, q),
  };
}
