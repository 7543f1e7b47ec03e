/**
 * Batch writes: at most 100 rows per call (101 is refused as a whole, naming the list); each row
 * succeeds or fails on its own. Valid rows of a create go to the store in one insertMany, their
 * versions in another, alongside one table update: a batch costs three writes, not 300.
 */
import { AppError, badInput, type Principal } from '@pylon/kit';
import { sortSlots, validateRowData } from '../../domain/cells.js';
import { MAX_BATCH_ROWS } from '../../domain/data-table.js';
import { newRowId, type DataTableRowRecord } from '../../shared/data-table.repository.js';
import { rowsChanged, type DataTablesRuntime } from '../../runtime.js';
import { bumped, created, type RowChange } from './filtered-counts.js';
import { getDataTable } from '../tables/get-data-table.js';
import { assertRoom, removeRow, SORT_GAP } from './row-writes.js';

export interface RowResult {
  index: number;
  rowId: string | null;
  success: boolean;
  error: string | null;
  errorCode: string | null;
}

export interface BatchResult {
  results: RowResult[];
  successCount: number;
  failureCount: number;
}

function checkSize(list: unknown, field: string): asserts list is unknown[] {
  if (!Array.isArray(list)) throw badInput(field, `${field} must be a list`);
  if (list.length === 0) throw badInput(field, `${field} must hold at least 1 item(s)`);
  if (list.length > MAX_BATCH_ROWS)
    throw badInput(field, `${field} must hold at most ${MAX_BATCH_ROWS} item(s) per call (got ${list.length}); nothing was written`);
}

const summary = (results: RowResult[]): BatchResult => {
  const successCount = results.filter((r) => r.success).length;
  return { results, successCount, failureCount: results.length - successCount };
};

const failure = (index: number, rowId: string | null, e: unknown): RowResult => {
  if (!(e instanceof AppError)) throw e;
  return { index, rowId, success: false, error: e.message, errorCode: e.code };
};

export async function batchCreateRows(rt: DataTablesRuntime, principal: Principal, input: { tableId: string; rows: unknown }): Promise<BatchResult> {
  checkSize(input.rows, 'rows');
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const results: RowResult[] = [];
  const valid: Array<DataTableRowRecord & { id: string }> = [];
  let next = ((await rt.repo.lastSortOrder(principal.accountId, table.id)) ?? 0) + SORT_GAP;
  input.rows.forEach((r, index) => {
    try {
      const raw = typeof r === 'object' && r !== null ? (r as { data?: unknown }).data : undefined;
      const data = validateRowData(table.columns, raw);
      const row = { id: newRowId(), tableId: table.id, sortOrder: next, data, ix: sortSlots(table.columns, data), rev: 1 };
      next += SORT_GAP;
      valid.push(row);
      results.push({ index, rowId: row.id, success: true, error: null, errorCode: null });
    } catch (e) {
      results.push(failure(index, null, e instanceof AppError ? new AppError(e.code, `rows[${index}].${e.message}`, e.details) : e));
    }
  });
  assertRoom(rt, table, valid.length, 'rows');
  await rt.counts.write(
    principal.accountId,
    table.id,
    () => rt.repo.appendRows(principal.accountId, table, valid, principal.userId),
    (r) => bumped(r.table, created(r.rows)),
  );
  rowsChanged(
    rt,
    principal.accountId,
    table.id,
    'created',
    valid.map((r) => r.id),
  );
  return summary(results);
}

export async function batchDeleteRows(rt: DataTablesRuntime, principal: Principal, input: { tableId: string; rowIds: unknown }): Promise<BatchResult> {
  checkSize(input.rowIds, 'rowIds');
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const ids = input.rowIds.map((id) => (typeof id === 'string' ? id : ''));
  const found = await rt.repo.getRows(principal.accountId, table.id, ids.filter(Boolean));
  const seen = new Set<string>();
  const removed: RowChange[] = [];
  const { out } = await rt.counts.write(
    principal.accountId,
    table.id,
    async () => {
      const results = await Promise.all(
        ids.map(async (id, index): Promise<RowResult> => {
          const row = found.get(id);
          if (!row || seen.has(id)) return { index, rowId: id || null, success: false, error: `row '${id}' was not found`, errorCode: 'NOT_FOUND' };
          seen.add(id);
          try {
            await removeRow(rt, principal, row);
            removed.push({ before: row.data, after: null });
            return { index, rowId: id, success: true, error: null, errorCode: null };
          } catch (e) {
            return failure(index, id, e);
          }
        }),
      );
      const out = summary(results);
      return { out, touched: out.successCount > 0 ? await rt.repo.touchTable(principal.accountId, table.id, -out.successCount) : null };
    },
    (r) => (r.out.successCount === 0 ? 'unchanged' : bumped(r.touched, removed)),
  );
  rowsChanged(
    rt,
    principal.accountId,
    table.id,
    'deleted',
    out.results.filter((r) => r.success && r.rowId).map((r) => r.rowId!),
  );
  return out;
}
