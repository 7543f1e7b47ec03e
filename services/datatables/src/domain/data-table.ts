/** Data table domain: stored shapes and rules. Imports no driver and no GraphQL. */

/** GraphQL enum ColumnType; stored as these values. */
export const COLUMN_TYPES = ['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'IMAGE', 'HIDDEN'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** A cell as stored: DATE as an ISO 8601 string, IMAGE/HIDDEN/TEXT as strings; null = empty. */
export type Cell = string | number | boolean | null;
export type RowData = Record<string, Cell>;

export interface DataTableColumnRecord {
  id: string;
  name: string;
  /** Key of this column's cells in a row's data; unique within the table. */
  key: string;
  type: ColumnType;
  required: boolean;
  sortable: boolean;
  /** Allowed values when the column offers a fixed choice. */
  options: string[] | null;
  default: string | null;
  /**
   * Sortable columns own one of the rows' indexed sort slots (row field `ix.s<slot>`), so a page
   * sorted by the column is an index walk; null for columns that are not sortable.
   */
  slot?: number | null;
}

export interface DataTableRecord {
  name: string;
  description: string | null;
  /** In display order. */
  columns: DataTableColumnRecord[];
  /** Kept by the row writes, so listing tables needs no count over the rows. */
  rowCount: number;
  /** How long row reads may be cached; null: not cached. */
  cacheTtlSeconds: number | null;
  /** Bumped by every write to the table or its rows: cache keys include it, so a write invalidates on every replica. */
  generation?: number;
}

/** Table list pages: pageSize default 50, at most 100. */
export const TABLE_PAGE = { default: 50, max: 100 } as const;
/** Row pages: pageSize default 50, at most 100. */
export const ROW_PAGE = { default: 50, max: 100 } as const;
/** Rows per batch call (spec: up to 100). */
export const MAX_BATCH_ROWS = 100;
/** Indexed sort slots per table: at most this many sortable columns. */
export const SORT_SLOTS = 8;
export const MAX_COLUMNS = 200;

/**
 * Column keys become object keys of stored documents and paths of filters: letters, digits, '_'
 * and '-', starting with a letter or '_'. That excludes dots, '$' and whitespace; the names of
 * Object.prototype members are refused on top (`__proto__`, `constructor`, ...).
 */
const KEY_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const RESERVED_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

export function columnKeyProblem(key: string): string | null {
  if (!KEY_RE.test(key)) return 'must be 1-64 letters, digits, _ or -, starting with a letter or _ (no dots, $ or spaces)';
  if (RESERVED_KEYS.has(key)) return `'${key}' is reserved`;
  return null;
}
