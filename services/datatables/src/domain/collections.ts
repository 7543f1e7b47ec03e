import type { CollectionSpec } from '@pylon/kit';
import { SORT_SLOTS } from './data-table.js';

export const DATA_TABLES: CollectionSpec = { name: 'dataTables' };

/**
 * Rows of every table of an account live in one collection, found through secondary indexes
 * that start with tableId: `order` (tableId, sortOrder) serves the default row order, appends and
 * reorders; `s0`..`s7` (tableId, ix.s<n>) serve pages sorted by a sortable column, each owning one
 * slot. Slot indexes are sparse (a row has entries only for its table's sortable columns; every
 * row of a table has the same slots, null when empty), and a slot-sorted page asks for the slot
 * to exist, which lets the store walk it. A filtered sorted page is a walk of one index range from the continuation position,
 * testing the filter on each row, stopping at pageSize: its cost follows the rows visited, not
 * the table size. See BENCHMARKS.md (data tables).
 */
export const DATA_TABLE_ROWS: CollectionSpec = {
  name: 'dataTableRows',
  indexes: [
    { name: 'order', fields: ['tableId', 'sortOrder'] },
    ...Array.from({ length: SORT_SLOTS }, (_, i) => ({ name: `s${i}`, fields: ['tableId', `ix.s${i}`], sparse: true })),
  ],
};

/** One document per row version, id `<rowId>~<version>`: a second writer of a version collides. */
export const DATA_TABLE_ROW_VERSIONS: CollectionSpec = {
  name: 'dataTableRowVersions',
  indexes: [{ name: 'row', fields: ['tableId', 'rowId', 'rev'] }],
};
