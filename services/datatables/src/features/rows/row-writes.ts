/**
 * Single-row writes. Each write checks the table and row belong to the caller, validates the data
 * by column type, writes the row guarded by the version it read (a concurrent write makes this one
 * VERSION_CONFLICT), records the new version in the row's history and bumps the table's
 * generation (invalidating cached reads on every replica).
 */
import { AppError, badInput, notFound, type Principal } from '@pylon/kit';
import { sortSlots, validateRowData } from '../../domain/cells.js';
import type { DataTable, DataTableRow, DataTableRowVersionRecord, RowChange } from '../../shared/data-table.repository.js';
import { newRowId } from '../../shared/data-table.repository.js';
import { rowsChanged, type DataTablesRuntime } from '../../runtime.js';
import { bumped, created } from './filtered-counts.js';
import { getDataTable } from '../tables/get-data-table.js';

/** Gap between the sort keys of appended rows: room for many moves between two neighbours. */
export const SORT_GAP = 1024;

/**
 * Refuses a write that would take the table past DATATABLE_MAX_ROWS (issue 34, L3: the cap stopped
 * imports only; batches kept writing past it). Judged on the table as read before the write: two
 * concurrent writers may each pass with room for one, a bounded overshoot of one call.
 */
export function assertRoom(rt: Pick<DataTablesRuntime, 'maxTableRows'>, table: Pick<DataTable, 'rowCount'>, adding: number, field: string): void {
  const max = rt.maxTableRows;
  if (max === undefined || adding === 0 || (table.rowCount ?? 0) + adding <= max) return;
  throw new AppError(
    'PAYLOAD_TOO_LARGE',
    `a table holds at most ${max} rows (DATATABLE_MAX_ROWS); it has ${table.rowCount ?? 0}, so ${adding} more do not fit; nothing was written`,
    {
      field,
    },
  );
}

export const versionOf = (row: DataTableRow, change: RowChange, userId: string | null): DataTableRowVersionRecord => ({
  tableId: row.tableId,
  rowId: row.id,
  rev: row.rev,
  change,
  data: row.data,
  sortOrder: row.sortOrder,
  userId,
});

export async function getRowOf(rt: DataTablesRuntime, principal: Principal, table: DataTable, rowId: unknown): Promise<DataTableRow> {
  if (typeof rowId !== 'string' || rowId === '') throw badInput('rowId', 'rowId is required');
  const row = await rt.repo.getRow(principal.accountId, table.id, rowId);
  if (!row) throw notFound('row', rowId);
  return row;
}

export function checkVersion(row: DataTableRow, expected: unknown, field = 'version'): void {
  if (expected === null || expected === undefined) return;
  if (typeof expected !== 'number' || !Number.isInteger(expected) || expected < 1) throw badInput(field, `${field} must be a positive integer`);
  if (row.rev !== expected) {
    throw new AppError('VERSION_CONFLICT', `row '${row.id}' is at version ${row.rev}, not ${expected}: read it again and retry`, {
      field,
      actualVersion: row.rev,
    });
  }
}

export async function createRow(rt: DataTablesRuntime, principal: Principal, input: { tableId: string; data: unknown }): Promise<DataTableRow> {
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const data = validateRowData(table.columns, input.data);
  assertRoom(rt, table, 1, 'data');
  const last = await rt.repo.lastSortOrder(principal.accountId, table.id);
  const row = { id: newRowId(), tableId: table.id, sortOrder: (last ?? 0) + SORT_GAP, data, ix: sortSlots(table.columns, data), rev: 1 };
  const { rows } = await rt.counts.write(
    principal.accountId,
    table.id,
    () => rt.repo.appendRows(principal.accountId, table, [row], principal.userId),
    (r) => bumped(r.table, created(r.rows)),
  );
  rowsChanged(rt, principal.accountId, table.id, 'created', [row.id]);
  return rows[0] as DataTableRow;
}

export async function updateRow(
  rt: DataTablesRuntime,
  principal: Principal,
  input: { tableId: string; rowId: string; data: unknown; version?: number | null },
): Promise<DataTableRow> {
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const row = await getRowOf(rt, principal, table, input.rowId);
  checkVersion(row, input.version);
  const data = validateRowData(table.columns, input.data, row.data);
  const { updated } = await rt.counts.write(
    principal.accountId,
    table.id,
    async () => {
      const updated = await rt.repo.writeRow(principal.accountId, row, { data, ix: sortSlots(table.columns, data) });
      const [, touched] = await Promise.all([
        rt.repo.recordVersions(principal.accountId, [versionOf(updated, 'UPDATE', principal.userId)], rt.historyLimit),
        rt.repo.touchTable(principal.accountId, table.id, 0),
      ]);
      return { updated, touched };
    },
    (r) => bumped(r.touched, [{ before: row.data, after: r.updated.data }]),
  );
  rowsChanged(rt, principal.accountId, table.id, 'updated', [row.id]);
  return updated;
}

/** Deletes one row already read; records a DELETE version holding its last data. */
export async function removeRow(rt: DataTablesRuntime, principal: Principal, row: DataTableRow): Promise<number> {
  const removed = await rt.repo.removeRow(principal.accountId, row);
  if (!removed) throw notFound('row', row.id);
  const version = row.rev + 1;
  await rt.repo.recordVersions(principal.accountId, [{ ...versionOf(row, 'DELETE', principal.userId), rev: version }], rt.historyLimit);
  return version;
}

export async function deleteRow(
  rt: DataTablesRuntime,
  principal: Principal,
  input: { tableId: string; rowId: string; version?: number | null },
): Promise<{ rowId: string; version: number }> {
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const row = await getRowOf(rt, principal, table, input.rowId);
  checkVersion(row, input.version);
  const { version } = await rt.counts.write(
    principal.accountId,
    table.id,
    async () => {
      const version = await removeRow(rt, principal, row);
      return { version, touched: await rt.repo.touchTable(principal.accountId, table.id, -1) };
    },
    (r) => bumped(r.touched, [{ before: row.data, after: null }]),
  );
  rowsChanged(rt, principal.accountId, table.id, 'deleted', [row.id]);
  return { rowId: row.id, version };
}
