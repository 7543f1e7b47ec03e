/** Data table domain: stored shapes and rules. Imports no driver and no GraphQL. */

/** GraphQL enum ColumnType; stored as these values. */
export const COLUMN_TYPES = ['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'IMAGE', 'HIDDEN'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

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
}

export interface DataTableRecord {
  name: string;
  description: string | null;
  /** In display order. */
  columns: DataTableColumnRecord[];
  /** Kept by the row writes, so listing tables needs no count over the rows. */
  rowCount: number;
  /** How long players may cache rows; null: the player's default. */
  cacheTtlSeconds: number | null;
}

/** Table list pages: pageSize default 50, at most 100. */
export const TABLE_PAGE = { default: 50, max: 100 } as const;
