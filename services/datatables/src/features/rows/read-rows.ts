/**
 * Row reads. A page walks one index range (see domain/collections.ts) from the continuation
 * position; totalCount is counted only when selected. Tables with cacheTtlSeconds > 0 serve
 * pages from the cache port under a key that includes the table's generation, which every write
 * bumps: a write anywhere makes older entries unreachable at once, on every replica.
 */
import { createHash } from 'node:crypto';
import { badInput, resolveLimit, type Principal } from '@pylon/kit';
import { positionGone } from '../../domain/continuation-token.js';
import { ROW_PAGE, type Cell } from '../../domain/data-table.js';
import {
  checkSortBounds,
  decodeRowToken,
  encodeRowToken,
  parseRowFilter,
  parseRowSort,
  sortValueOf,
  type RowCondition,
  type RowSort,
} from '../../domain/row-query.js';
import type { DataTable, DataTableRow } from '../../shared/data-table.repository.js';
import type { DataTablesRuntime } from '../../runtime.js';
import { getDataTable } from '../tables/get-data-table.js';
import { getRowOf } from './row-writes.js';

export interface RowPageQuery {
  tableId: string;
  filter?: string | null;
  sort?: string | null;
  sortDir?: string | null;
  pageSize?: number | null;
  continuationToken?: string | null;
}

export interface RowPage {
  data: DataTableRow[];
  continuationToken: string | null;
  /** Counted on demand (GraphQL resolves it only when selected). */
  totalCount: () => Promise<number>;
  /** The table's generation the page was read at (ETag material). */
  generation: number;
}

const cacheKey = (table: DataTable, what: string, q: unknown) =>
  `dt:${table.accountId}:${table.id}:${table.generation ?? 0}:${what}:${createHash('sha256').update(JSON.stringify(q)).digest('base64url')}`;

async function cached<T>(rt: DataTablesRuntime, table: DataTable, what: string, q: unknown, load: () => Promise<T>): Promise<T> {
  const ttl = table.cacheTtlSeconds ?? 0;
  if (!rt.cache || ttl <= 0) return load();
  const key = cacheKey(table, what, q);
  const hit = await rt.cache.get<T>(key);
  if (hit !== undefined) return hit;
  const value = await load();
  await rt.cache.set(key, value, ttl);
  return value;
}

/** A token's position; one naming a row (a long sort value) is read from that row. */
async function rowPosition(
  rt: DataTablesRuntime,
  tenant: string,
  tableId: string,
  sort: RowSort,
  at: [Cell, string] | { ref: string },
): Promise<[Cell, string]> {
  if (Array.isArray(at)) return at;
  const row = await rt.repo.getRow(tenant, tableId, at.ref);
  if (!row) throw positionGone();
  return [sortValueOf(sort, row), row.id];
}

export async function listRows(rt: DataTablesRuntime, principal: Principal, q: RowPageQuery): Promise<RowPage> {
  const table = await getDataTable(rt.repo, principal, q.tableId);
  const size = resolveLimit(q.pageSize, ROW_PAGE, 'pageSize');
  if (size < 1) throw badInput('pageSize', 'pageSize must be at least 1');
  const filter = parseRowFilter(table.columns, q.filter);
  const sort = parseRowSort(table.columns, q.sort, q.sortDir);
  checkSortBounds(sort, table.rowCount ?? 0);
  const tenant = principal.accountId;
  const after = q.continuationToken ? await rowPosition(rt, tenant, table.id, sort, decodeRowToken(sort, q.continuationToken)) : null;
  const key = { filter, sort, after, size };
  const page = await cached(rt, table, 'page', key, async () => {
    const found = await rt.repo.pageRows(tenant, table.id, filter, sort, after, size + 1);
    const data = found.slice(0, size);
    const last = data.at(-1);
    const value = last ? sortValueOf(sort, last) : null;
    return { data, continuationToken: found.length > size && last ? encodeRowToken(sort, value, last.id) : null };
  });
  const unfiltered = filter.length === 0;
  return {
    ...page,
    generation: table.generation ?? 0,
    totalCount: () => (unfiltered ? Promise.resolve(table.rowCount ?? 0) : filteredCount(rt, table, filter)),
  };
}

/** How long a shared-cache count lives; the generation in its key already makes it exact, this only frees space. */
const COUNT_TTL_SECONDS = 600;

/**
 * The rows matching a filter. Kept in this process and carried across its writes
 * (filtered-counts.ts), and, when a cache is configured, shared with the other replicas per table
 * generation whatever the table's cacheTtlSeconds (the generation in the key makes it exact: every
 * write bumps it). A full count is paid when neither knows the filter at this generation: after a
 * write through another replica, or the first time (REST and legacy answer total_count on every
 * page; GraphQL counts only when totalCount is selected).
 */
async function filteredCount(rt: DataTablesRuntime, table: DataTable, filter: RowCondition[]): Promise<number> {
  const generation = table.generation ?? 0;
  const filterKey = JSON.stringify(filter);
  const memo = rt.counts.get(table.accountId, table.id, generation, filterKey);
  if (memo !== undefined) return memo;
  const remember = rt.counts.counting(table.accountId, table.id, generation, filterKey, filter);
  try {
    const key = cacheKey(table, 'count', filter);
    let n = rt.cache ? await rt.cache.get<number>(key) : undefined;
    if (n === undefined) {
      n = await rt.repo.countRows(table.accountId, table.id, filter);
      if (rt.cache) await rt.cache.set(key, n, COUNT_TTL_SECONDS);
    }
    remember(n);
    return n;
  } catch (e) {
    remember();
    throw e;
  }
}

export async function getRow(rt: DataTablesRuntime, principal: Principal, tableId: string, rowId: string): Promise<DataTableRow> {
  const table = await getDataTable(rt.repo, principal, tableId);
  return cached(rt, table, 'row', rowId, () => getRowOf(rt, principal, table, rowId));
}
