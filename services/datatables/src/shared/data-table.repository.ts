import { randomBytes } from 'node:crypto';
import {
  AppError,
  insertUnlessPresent,
  listQuery,
  orderToSort,
  scalarCondition,
  storedFields,
  whereToFilter,
  type Collection,
  type DocumentStore,
  type FieldMap,
  type Filter,
  type ListArgs,
  type Sort,
  type Stored,
} from '@pylon/kit';
import { DATA_TABLE_ROW_VERSIONS, DATA_TABLE_ROWS, DATA_TABLES } from '../domain/collections.js';
import type { Cell, DataTableRecord, RowData } from '../domain/data-table.js';
import type { RowCondition } from '../domain/row-query.js';
import { escapeRegex } from '../domain/row-match.js';

export type DataTable = Stored<DataTableRecord>;

export interface DataTableRowRecord {
  tableId: string;
  sortOrder: number;
  data: RowData;
  /** Sort-slot copies of the sortable columns' cells (see collections.ts). */
  ix: Record<string, Cell>;
  /** The row's version as clients see it: +1 on every write, continuing across delete and restore. */
  rev: number;
  /**
   * Present while the row's CREATE version exists only as the row itself: rows are created
   * without a version document (it would repeat the row, and it was a third of a created row's
   * storage writes). The first change of the row (update, delete, reorder, migration) writes that
   * version from the row as it was and drops this field; history reads synthesize it until then.
   */
  createdBy?: { userId: string | null };
}
export type DataTableRow = Stored<DataTableRowRecord>;

export type RowChange = 'CREATE' | 'UPDATE' | 'DELETE' | 'ROLLBACK' | 'REORDER';

export interface DataTableRowVersionRecord {
  tableId: string;
  rowId: string;
  /** The row version this records (`version` itself is the store's own field). */
  rev: number;
  change: RowChange;
  data: RowData;
  sortOrder: number;
  userId: string | null;
  /** When the write happened, if not when this document was stored (a CREATE version written late). */
  at?: string;
}
export type DataTableRowVersion = Stored<DataTableRowVersionRecord>;

let idSeq = 0;
// Random suffixes come from a pool: one randomBytes call per 512 ids instead of one per id (a
// per-id call was ~5% of batch-create and import time in the profile, see BENCHMARKS.md).
const POOL_IDS = 512;
let pool = Buffer.alloc(0);
let poolAt = 0;
/** Time-ordered row ids: new rows append to the end of the id space (cheap inserts, stable ties). */
export function newRowId(): string {
  idSeq = (idSeq + 1) % 46656;
  if (poolAt >= pool.length) {
    pool = randomBytes(5 * POOL_IDS);
    poolAt = 0;
  }
  const suffix = pool.toString('hex', poolAt, poolAt + 5);
  poolAt += 5;
  return `r${Date.now().toString(36).padStart(9, '0')}${idSeq.toString(36).padStart(3, '0')}${suffix}`;
}

const versionId = (rowId: string, version: number) => `${rowId}~${String(version).padStart(10, '0')}`;

/**
 * Data tables, rows and row versions of one account, over the documents port. The only place that
 * touches these collections: use cases call intent-named methods, never a raw collection.
 */
export class DataTableRepository {
  private readonly tables: Collection<DataTableRecord>;
  private readonly rows: Collection<DataTableRowRecord>;
  private readonly versions: Collection<DataTableRowVersionRecord>;

  constructor(store: DocumentStore) {
    this.tables = store.collection<DataTableRecord>(DATA_TABLES);
    this.rows = store.collection<DataTableRowRecord>(DATA_TABLE_ROWS);
    this.versions = store.collection<DataTableRowVersionRecord>(DATA_TABLE_ROW_VERSIONS);
  }

  // -- tables --------------------------------------------------------------------------------

  /**
   * The account's tables matching `where`, sorted by `order` (TABLE_FIELDS; default and
   * tiebreakers name, then id): the store query a page is read with. `sort` is what a page's
   * continuation position is taken from (its fields' values on the page's last table).
   */
  tableQuery(q: Pick<ListArgs, 'where' | 'order'>): { filter: Filter; sort: Sort } {
    const sort: Sort = {};
    // id is unique: fields after it never decide an order, and would only lengthen tokens.
    for (const [k, d] of Object.entries(orderToSort(q.order, TABLE_FIELDS, { name: 1, id: 1 }))) {
      sort[k] = d;
      if (k === 'id') break;
    }
    return { filter: whereToFilter(q.where, TABLE_FIELDS), sort };
  }

  /** One page of tables from tableQuery's answer, strictly after the position `after`. */
  listTables(tenant: string, query: { filter: Filter; sort: Sort }, after: unknown[] | null, limit: number): Promise<DataTable[]> {
    return this.tables.find(tenant, query.filter, { sort: query.sort, limit, ...(after ? { after } : {}) });
  }

  async getTable(tenant: string, id: string): Promise<DataTable | null> {
    return this.tables.findById(tenant, id);
  }

  insertTable(tenant: string, table: DataTableRecord & { id?: string }): Promise<DataTable> {
    return this.tables.insert(tenant, { ...table, generation: 1 });
  }

  /** Replaces the definition fields; VERSION_CONFLICT when the table changed since `expectedVersion`. */
  async saveDefinition(
    tenant: string,
    id: string,
    def: Partial<Omit<DataTableRecord, 'rowCount' | 'generation'>>,
    expectedVersion: number,
  ): Promise<DataTable | null> {
    const set: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(def)) if (v !== undefined) set[k] = v;
    const current = await this.tables.findById(tenant, id);
    if (!current) return null;
    set.generation = (current.generation ?? 0) + 1;
    return this.tables.update(tenant, id, { $set: set }, { expectedVersion });
  }

  /** Adds `rowDelta` to rowCount and bumps the generation (invalidating cached reads everywhere). */
  async touchTable(tenant: string, id: string, rowDelta: number, known?: DataTable): Promise<DataTable | null> {
    for (let attempt = 0; attempt < 50; attempt++) {
      // The table as the caller read it saves a read on the first attempt; a conflict reads it afresh.
      const t = attempt === 0 && known ? known : await this.tables.findById(tenant, id);
      if (!t) return null;
      try {
        return await this.tables.update(
          tenant,
          id,
          { $set: { rowCount: Math.max(0, (t.rowCount ?? 0) + rowDelta), generation: (t.generation ?? 0) + 1 } },
          { expectedVersion: t.version },
        );
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'VERSION_CONFLICT')) throw e;
      }
    }
    throw new AppError('UNAVAILABLE', 'the table is too busy, try again');
  }

  /** Deletes the table, its rows and their history; returns how many rows went. */
  async deleteTable(tenant: string, id: string): Promise<number | null> {
    const deleted = await this.tables.delete(tenant, id);
    if (!deleted) return null;
    const rows = await this.rows.deleteMany(tenant, { tableId: id });
    await this.versions.deleteMany(tenant, { tableId: id });
    return rows;
  }

  // -- rows ----------------------------------------------------------------------------------

  async getRow(tenant: string, tableId: string, rowId: string): Promise<DataTableRow | null> {
    const row = await this.rows.findById(tenant, rowId);
    return row && row.tableId === tableId ? row : null;
  }

  /** Rows by id (missing and other tables' ids are left out). */
  async getRows(tenant: string, tableId: string, rowIds: readonly string[]): Promise<Map<string, DataTableRow>> {
    const out = new Map<string, DataTableRow>();
    await Promise.all(
      rowIds.map(async (id) => {
        const r = await this.getRow(tenant, tableId, id);
        if (r) out.set(id, r);
      }),
    );
    return out;
  }

  /** The largest sortOrder of the table (null when it has no rows): one step of the `order` index. */
  async lastSortOrder(tenant: string, tableId: string): Promise<number | null> {
    const [last] = await this.rows.find(tenant, { tableId }, { sort: { sortOrder: -1, id: -1 }, limit: 1 });
    return last ? last.sortOrder : null;
  }

  /** The row just after (sortOrder, id) in row order, skipping `skip`. */
  async nextInOrder(tenant: string, tableId: string, after: [number, string] | null, skip: ReadonlySet<string>): Promise<DataTableRow | null> {
    let cursor = after;
    for (;;) {
      const page = await this.rows.find(tenant, { tableId }, { sort: { sortOrder: 1, id: 1 }, limit: 16, ...(cursor ? { after: cursor } : {}) });
      for (const r of page) if (!skip.has(r.id)) return r;
      const last = page.at(-1);
      if (!last || page.length < 16) return null;
      cursor = [last.sortOrder, last.id];
    }
  }

  /** A page of rows of `tableId` matching `filter`, in (path, id) order from after `after`. */
  pageRows(
    tenant: string,
    tableId: string,
    conditions: readonly RowCondition[],
    sort: { path: string; dir: 1 | -1; key?: string },
    after: [Cell, string] | null,
    limit: number,
  ): Promise<DataTableRow[]> {
    const where = rowsWhere(tableId, conditions);
    // Slot indexes are sparse: every row of the table has the slot, saying so lets the store walk it.
    // Numeric bounds on the sorted column are repeated on its slot, so the walk starts at the
    // range and stops past it instead of testing every row before it (the slot mirrors the cell).
    // A `data.<key>` sort (no slot) has no index to walk: the store reads and sorts (bounded by the caller).
    if (sort.path.startsWith('ix.')) where[sort.path] = { $exists: true, ...(sort.key ? slotBounds(conditions, sort.key) : {}) };
    return this.rows.find(tenant, where, { sort: { [sort.path]: sort.dir, id: sort.dir }, limit, ...(after ? { after } : {}) });
  }

  /** Which of these row ids exist (a resumed import job's first chunk). */
  async existingRowIds(tenant: string, ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return [];
    return (await this.rows.find(tenant, { id: { $in: [...ids] } }, { limit: ids.length })).map((r) => r.id);
  }

  countRows(tenant: string, tableId: string, conditions: readonly RowCondition[]): Promise<number> {
    return this.rows.count(tenant, rowsWhere(tableId, conditions));
  }

  /** Every row of the table in row order, `chunk` at a time (bounded memory for export and migration). */
  async *allRows(tenant: string, tableId: string, chunk = 1000): AsyncGenerator<DataTableRow[]> {
    let after: [number, string] | null = null;
    for (;;) {
      const page: DataTableRow[] = await this.rows.find(tenant, { tableId }, { sort: { sortOrder: 1, id: 1 }, limit: chunk, ...(after ? { after } : {}) });
      if (page.length === 0) return;
      yield page;
      if (page.length < chunk) return;
      const last = page[page.length - 1] as DataTableRow;
      after = [last.sortOrder, last.id];
    }
  }

  insertRows(tenant: string, rows: Array<DataTableRowRecord & { id: string }>): Promise<DataTableRow[]> {
    return this.rows.insertMany(tenant, rows);
  }

  /**
   * Appends new rows: the rows (one insertMany), their CREATE versions (one insertMany) and the
   * table's rowCount/generation bump, all issued in the same event turn. The embedded store
   * batches writes of one turn into one LMDB transaction and one flush, so there they commit
   * together; the port itself has no multi-collection transaction, so on MongoDB a crash between
   * the writes can leave rows without their CREATE version or a stale rowCount (the history then
   * starts at the row's next write; rowCount is advisory and recounted by nothing: see BENCHMARKS.md).
   */
  async appendRows(
    tenant: string,
    table: DataTable,
    rows: Array<DataTableRowRecord & { id: string }>,
    userId: string | null,
  ): Promise<{ rows: DataTableRow[]; table: DataTable }> {
    if (rows.length === 0) return { rows: [], table };
    // No version documents: each row carries its CREATE version until its first change (createdBy).
    const createdBy = { userId };
    const [stored, touched] = await Promise.all([
      this.rows.insertMany(
        tenant,
        rows.map((r) => ({ ...r, createdBy })),
      ),
      this.touchTable(tenant, table.id, rows.length, table),
    ]);
    return { rows: stored, table: touched ?? table };
  }

  /**
   * Writes the CREATE version a row still carries (see `createdBy`), from the row as read, issued
   * alongside the write that changes the row. A concurrent writer that wrote it first wins: the
   * duplicate is the same snapshot, so it is ignored.
   */
  private async keepCreateVersion(tenant: string, row: DataTableRow): Promise<void> {
    if (!row.createdBy) return;
    await insertUnlessPresent(this.versions, tenant, { id: versionId(row.id, 1), ...createVersionOf(row) });
  }

  /** Writes a row's new state; VERSION_CONFLICT when it changed since it was read. */
  async writeRow(tenant: string, row: DataTableRow, next: Partial<Pick<DataTableRowRecord, 'data' | 'ix' | 'sortOrder'>>): Promise<DataTableRow> {
    const [updated] = await Promise.all([
      this.rows.update(
        tenant,
        row.id,
        { $set: { ...next, rev: row.rev + 1 }, ...(row.createdBy ? { $unset: ['createdBy'] } : {}) },
        { expectedVersion: row.version },
      ),
      this.keepCreateVersion(tenant, row),
    ]);
    if (!updated) throw new AppError('VERSION_CONFLICT', `row '${row.id}' was deleted meanwhile`, { field: 'rowId' });
    return updated;
  }

  /** Deletes a row as read; VERSION_CONFLICT when it changed since. */
  async removeRow(tenant: string, row: DataTableRow): Promise<boolean> {
    const [removed] = await Promise.all([this.rows.delete(tenant, row.id, { expectedVersion: row.version }), this.keepCreateVersion(tenant, row)]);
    return removed;
  }

  /** Puts a deleted row back under its id (rollback of a deleted row). */
  restoreRow(tenant: string, row: DataTableRowRecord & { id: string }): Promise<DataTableRow> {
    return this.rows.insert(tenant, row);
  }

  /** Rewrites data of rows without a new version (schema migration). */
  async migrateRow(tenant: string, row: DataTableRow, data: RowData, ix: Record<string, Cell>): Promise<void> {
    await Promise.all([
      this.rows.update(tenant, row.id, { $set: { data, ix }, ...(row.createdBy ? { $unset: ['createdBy'] } : {}) }),
      this.keepCreateVersion(tenant, row),
    ]);
  }

  /** Moves a row without a new version (renumbering when reorder gaps run out). */
  async renumberRow(tenant: string, row: DataTableRow, sortOrder: number): Promise<void> {
    await Promise.all([
      this.rows.update(tenant, row.id, { $set: { sortOrder }, ...(row.createdBy ? { $unset: ['createdBy'] } : {}) }),
      this.keepCreateVersion(tenant, row),
    ]);
  }

  // -- versions ------------------------------------------------------------------------------

  async recordVersions(tenant: string, versions: DataTableRowVersionRecord[], keep: number): Promise<void> {
    if (versions.length === 0) return;
    await this.versions.insertMany(
      tenant,
      versions.map((v) => ({ id: versionId(v.rowId, v.rev), ...v })),
    );
    const prune = versions.filter((v) => v.rev > keep);
    await Promise.all(prune.map((v) => this.versions.delete(tenant, versionId(v.rowId, v.rev - keep))));
  }

  /** Newest first; a CREATE version the row still carries is listed as if stored. */
  async listVersions(tenant: string, tableId: string, rowId: string, limit: number): Promise<DataTableRowVersion[]> {
    const [stored, row] = await Promise.all([
      this.versions.find(tenant, { tableId, rowId }, { sort: { rev: -1, id: -1 }, limit }),
      this.getRow(tenant, tableId, rowId),
    ]);
    if (row?.createdBy && stored.length < limit && !stored.some((v) => v.rev === 1)) stored.push(carriedVersion(row));
    return stored;
  }

  /**
   * A row's versions filtered by `where` and sorted by `order` (VERSION_FIELDS; default newest
   * first), at most `limit`. A CREATE version the row still carries is written first, so the
   * store can filter and sort it with the others (it is the same snapshot a later write would
   * store, so writing it early changes no answer).
   */
  async searchVersions(tenant: string, tableId: string, rowId: string, q: Pick<ListArgs, 'where' | 'order' | 'limit'>): Promise<DataTableRowVersion[]> {
    const { filter, options } = listQuery(q, VERSION_FIELDS, { clauses: [{ tableId }, { rowId }], fallbackSort: { rev: -1, id: -1 } });
    const row = await this.getRow(tenant, tableId, rowId);
    if (row) await this.keepCreateVersion(tenant, row);
    return this.versions.find(tenant, filter, options);
  }

  async getVersion(tenant: string, tableId: string, rowId: string, version: number): Promise<DataTableRowVersion | null> {
    const v = await this.versions.findById(tenant, versionId(rowId, version));
    if (v) return v.tableId === tableId ? v : null;
    if (version !== 1) return null;
    const row = await this.getRow(tenant, tableId, rowId);
    return row?.createdBy ? carriedVersion(row) : null;
  }

  async latestVersion(tenant: string, tableId: string, rowId: string): Promise<DataTableRowVersion | null> {
    const [v] = await this.listVersions(tenant, tableId, rowId, 1);
    return v ?? null;
  }
}

/** How the GraphQL where/order fields of DataTable map onto stored tables (columns are neither). */
const TABLE_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name', 'description']),
  ...storedFields('number', ['rowCount', 'cacheTtlSeconds']),
  updatedAt: { path: 'updatedAt', kind: 'date' },
};

/**
 * How the GraphQL where/order fields of DataTableRowVersion map onto stored versions. updatedAt is
 * `at` when set (a CREATE version written late), else when the version was stored; a row's
 * versions are written in order, so sorting by updatedAt is sorting by version. `data` (JSON) is
 * neither filterable nor sortable.
 */
const VERSION_FIELDS: FieldMap = {
  ...storedFields('string', ['rowId', 'change', 'userId']),
  version: { path: 'rev', kind: 'number' },
  sortOrder: { path: 'sortOrder', kind: 'number' },
  updatedAt: {
    custom: (ops, name) => {
      const conds = scalarCondition(name, 'date', ops);
      if (conds.length === 0) return {};
      const on = (path: string): Filter => ({ $and: conds.map((c) => ({ [path]: c })) });
      return { $or: [{ $and: [{ at: { $ne: null } }, on('at')] }, { $and: [{ at: null }, on('createdAt')] }] };
    },
    sortPath: 'rev',
  },
};

/** The CREATE version of a row that has not changed since it was created. */
function createVersionOf(row: DataTableRow): DataTableRowVersionRecord {
  return {
    tableId: row.tableId,
    rowId: row.id,
    rev: 1,
    change: 'CREATE',
    data: row.data,
    sortOrder: row.sortOrder,
    userId: row.createdBy?.userId ?? null,
    at: row.createdAt,
  };
}

/** That version as history reads answer it, before it is written (see DataTableRowRecord.createdBy). */
function carriedVersion(row: DataTableRow): DataTableRowVersion {
  return { ...createVersionOf(row), id: versionId(row.id, 1), accountId: row.accountId, version: 1, createdAt: row.createdAt, updatedAt: row.createdAt };
}

/** The numeric bounds conditions put on one column, as comparison operators on its sort slot. */
function slotBounds(conditions: readonly RowCondition[], key: string): Filter {
  const out: Filter = {};
  const put = (op: string, v: Cell) => {
    if (typeof v === 'number' && !(op in out)) out[op] = v;
  };
  for (const c of conditions) {
    if (c.key !== key) continue;
    if (c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte') put(`$${c.op}`, c.value);
    else if (c.op === 'eq') put('$eq', c.value);
    else if (c.op === 'inRange') {
      put('$gte', c.value[0]);
      put('$lte', c.value[1]);
    }
  }
  return out;
}

/** The storage query for the rows of `tableId` meeting every condition (values live under `data.<key>`). */
function rowsWhere(tableId: string, conditions: readonly RowCondition[]): Filter {
  if (conditions.length === 0) return { tableId };
  return { tableId, $and: conditions.map(storageCondition) };
}

function storageCondition(c: RowCondition): Filter {
  const path = `data.${c.key}`;
  switch (c.op) {
    case 'eq':
      return { [path]: c.value };
    case 'neq':
      return { [path]: { $ne: c.value } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [path]: { [`$${c.op}`]: c.value } };
    case 'contains':
      return { [path]: { $regex: escapeRegex(c.value), $options: 'i' } };
    case 'notContains':
      return { [path]: { $not: { $regex: escapeRegex(c.value), $options: 'i' } } };
    case 'empty':
      return { [path]: { $in: [null, ''] } };
    case 'notEmpty':
      return { [path]: { $nin: [null, ''] } };
    case 'inRange':
      return { [path]: { $gte: c.value[0], $lte: c.value[1] } };
    case 'outOfRange':
      return { $or: [{ [path]: { $lt: c.value[0] } }, { [path]: { $gt: c.value[1] } }] };
  }
}
