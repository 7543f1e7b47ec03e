/**
 * Row queries: the `filter` JSON (column key to value or operator object) turned into validated
 * conditions (the repository turns them into a storage query), the sort (a column key's indexed slot, or the row
 * order) and the continuation token (the last row's sort position, bound to the query's sort).
 */
import { badInput } from '@pylon/kit';
import { coerceCell } from './cells.js';
import { decodeContinuationToken, encodeContinuationToken } from './continuation-token.js';
import type { Cell, DataTableColumnRecord } from './data-table.js';

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'contains',
  'notContains',
  'gt',
  'gte',
  'lt',
  'lte',
  'isEmpty',
  'isNotEmpty',
  'positive',
  'negative',
  'inRange',
  'outOfRange',
] as const;
type Operator = (typeof FILTER_OPERATORS)[number];
const OPS = new Set<string>(FILTER_OPERATORS);
const MAX_FILTER_CHARS = 8192;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One validated condition of a row filter, in domain terms: the repository turns conditions into a
 * storage query (data-table.repository.ts), so no storage operator appears here.
 */
export type RowCondition =
  | { key: string; op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; value: Cell }
  | { key: string; op: 'contains' | 'notContains'; value: string }
  | { key: string; op: 'empty' | 'notEmpty' }
  | { key: string; op: 'inRange' | 'outOfRange'; value: [Cell, Cell] };

function operand(column: DataTableColumnRecord, op: string, v: unknown): Cell {
  const r = coerceCell({ ...column, options: null }, v);
  if (!r.ok) throw badInput('filter', `filter.${column.key}.${op} ${r.problem}`);
  return r.value;
}

function condition(column: DataTableColumnRecord, op: Operator, v: unknown): RowCondition {
  const key = column.key;
  const numeric = () => {
    if (column.type !== 'NUMBER') throw badInput('filter', `filter.${column.key}.${op} applies to NUMBER columns only`);
  };
  const pair = (): [Cell, Cell] => {
    if (!Array.isArray(v) || v.length !== 2) throw badInput('filter', `filter.${column.key}.${op} must be a list of two values [from, to]`);
    return [operand(column, op, v[0]), operand(column, op, v[1])];
  };
  switch (op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { key, op, value: operand(column, op, v) };
    case 'contains':
    case 'notContains':
      if (typeof v !== 'string' && typeof v !== 'number') throw badInput('filter', `filter.${column.key}.${op} must be a string`);
      return { key, op, value: String(v) };
    case 'isEmpty':
    case 'isNotEmpty':
      if (typeof v !== 'boolean') throw badInput('filter', `filter.${column.key}.${op} must be true or false`);
      return { key, op: (op === 'isEmpty') === v ? 'empty' : 'notEmpty' };
    case 'positive':
    case 'negative':
      numeric();
      if (typeof v !== 'boolean') throw badInput('filter', `filter.${column.key}.${op} must be true or false`);
      // positive: true -> > 0, positive: false -> <= 0; negative: true -> < 0, negative: false -> >= 0.
      if (op === 'positive') return { key, op: v ? 'gt' : 'lte', value: 0 };
      return { key, op: v ? 'lt' : 'gte', value: 0 };
    case 'inRange':
    case 'outOfRange':
      return { key, op, value: pair() };
  }
}

/** Parses the `filter` argument into conditions (all must hold); BAD_USER_INPUT naming `filter` for anything malformed. */
export function parseRowFilter(columns: readonly DataTableColumnRecord[], text: string | null | undefined): RowCondition[] {
  if (text === null || text === undefined || text.trim() === '') return [];
  if (text.length > MAX_FILTER_CHARS) throw badInput('filter', `filter must be at most ${MAX_FILTER_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badInput('filter', 'filter must be a JSON object of column key to value, e.g. {"city":"Oslo"}');
  }
  if (!isObject(parsed)) throw badInput('filter', 'filter must be a JSON object of column key to value, e.g. {"city":"Oslo"}');
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const parts: RowCondition[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    const column = byKey.get(key);
    if (!column) throw badInput('filter', `filter names unknown column '${key}'`);
    if (isObject(value)) {
      const ops = Object.keys(value);
      if (ops.length === 0) throw badInput('filter', `filter.${key} names no operator`);
      for (const op of ops) {
        if (!OPS.has(op)) throw badInput('filter', `filter.${key}: unknown operator '${op}' (known: ${FILTER_OPERATORS.join(', ')})`);
        parts.push(condition(column, op as Operator, value[op]));
      }
    } else {
      parts.push(condition(column, 'eq', value));
    }
  }
  return parts;
}

/**
 * Sorting by a column without the `sortable` index reads and sorts the table's rows on every page
 * (correct, but its cost follows the table, not the page): allowed on tables of at most this many
 * rows. Above it the refusal says to mark the column sortable, which gives it an index.
 */
export const UNINDEXED_SORT_MAX_ROWS = 20_000;

export interface RowSort {
  /** Documents-port path of the sort value: `sortOrder`, `ix.s<slot>` (indexed), or `data.<key>` (read and sorted). */
  path: string;
  dir: 1 | -1;
  /** Names the query in tokens: a token of another sort is refused. */
  label: string;
  /** The sorted column's key (absent for the row order). */
  key?: string;
  /** False for a column without a sort slot (see UNINDEXED_SORT_MAX_ROWS). */
  indexed: boolean;
}

export function parseRowSort(columns: readonly DataTableColumnRecord[], sort: string | null | undefined, sortDir: string | null | undefined): RowSort {
  let dir: 1 | -1 = 1;
  if (sortDir !== null && sortDir !== undefined && sortDir !== '') {
    const d = sortDir.toLowerCase();
    if (d !== 'asc' && d !== 'desc') throw badInput('sortDir', 'sortDir must be asc or desc');
    dir = d === 'asc' ? 1 : -1;
  }
  if (sort === null || sort === undefined || sort === '' || sort === 'sortOrder') return { path: 'sortOrder', dir, label: `sortOrder:${dir}`, indexed: true };
  const column = columns.find((c) => c.key === sort);
  if (!column) throw badInput('sort', `sort names unknown column '${sort}'`);
  // Every column sorts (the spec's createDataTable has no sortable flag); `sortable` asks for the index.
  if (column.slot === null || column.slot === undefined)
    return { path: `data.${column.key}`, dir, label: `${column.id}:${dir}:data`, key: column.key, indexed: false };
  return { path: `ix.s${column.slot}`, dir, label: `${column.id}:${dir}`, key: column.key, indexed: true };
}

/** Refuses an unindexed sort on a table too large for it (see UNINDEXED_SORT_MAX_ROWS). */
export function checkSortBounds(sort: RowSort, rowCount: number): void {
  if (sort.indexed || rowCount <= UNINDEXED_SORT_MAX_ROWS) return;
  throw badInput(
    'sort',
    `column '${sort.key}' has no sort index and the table has more than ${UNINDEXED_SORT_MAX_ROWS} rows: mark the column sortable (updateDataTable, columns[].sortable: true) to sort it`,
  );
}

/** The value a row holds at the sort's position (continuation tokens carry it). */
export function sortValueOf(sort: RowSort, row: { sortOrder: number; ix: Record<string, Cell>; data: Record<string, Cell> }): Cell {
  if (sort.path === 'sortOrder') return row.sortOrder;
  if (sort.indexed) return row.ix[sort.path.slice(3)] ?? null;
  return row.data[sort.key!] ?? null;
}

export function encodeRowToken(sort: RowSort, value: Cell, id: string): string {
  return encodeContinuationToken(sort.label, [value, id]);
}

/**
 * The position a token holds: [sort value, row id], or the id of the row whose position it is (a
 * long sort value); refused when malformed or made for another sort.
 */
export function decodeRowToken(sort: RowSort, token: string): [Cell, string] | { ref: string } {
  const at = decodeContinuationToken(token, sort.label, 2);
  if ('ref' in at) return at;
  const [value, id] = at.position;
  if (typeof id !== 'string') throw badInput('continuationToken', 'continuationToken is not a valid continuation token');
  return [value!, id];
}
