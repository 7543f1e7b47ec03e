/**
 * Reorder: the given rows, in the given order, move right after `afterRowId` (the top when
 * null). Row order is a gapped float key (appends step by 1024), so the moved rows take evenly
 * spaced keys between their new neighbours and no other row is rewritten. Only when repeated
 * moves exhaust the gap (keys closer than float precision allows) is the table renumbered.
 */
import { badInput, notFound, type Principal } from '@pylon/kit';
import { MAX_BATCH_ROWS } from '../../domain/data-table.js';
import type { DataTableRow } from '../../shared/data-table.repository.js';
import { rowsChanged, type DataTablesRuntime } from '../../runtime.js';
import { bumped } from './filtered-counts.js';
import { getDataTable } from '../tables/get-data-table.js';
import { SORT_GAP, versionOf } from './row-writes.js';

const MAX_REORDER = MAX_BATCH_ROWS * 10;

export async function reorderRows(
  rt: DataTablesRuntime,
  principal: Principal,
  input: { tableId: string; rowIds: string[]; afterRowId?: string | null },
): Promise<{ moved: number }> {
  const tenant = principal.accountId;
  if (input.rowIds.length === 0) throw badInput('rowIds', 'rowIds must hold at least 1 item(s)');
  if (input.rowIds.length > MAX_REORDER) throw badInput('rowIds', `rowIds must hold at most ${MAX_REORDER} item(s)`);
  if (new Set(input.rowIds).size !== input.rowIds.length) throw badInput('rowIds', 'rowIds lists a row twice');
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const rows = await rt.repo.getRows(tenant, table.id, input.rowIds);
  for (const [i, id] of input.rowIds.entries()) if (!rows.has(id)) throw badInput(`rowIds[${i}]`, `row '${id}' was not found`);
  const moving = new Set(input.rowIds);
  let anchor: DataTableRow | null = null;
  if (input.afterRowId) {
    if (moving.has(input.afterRowId)) throw badInput('afterRowId', 'afterRowId may not be one of the moved rows');
    anchor = await rt.repo.getRow(tenant, table.id, input.afterRowId);
    if (!anchor) throw notFound('row', input.afterRowId);
  }
  const next = await rt.repo.nextInOrder(tenant, table.id, anchor ? [anchor.sortOrder, anchor.id] : null, moving);
  const low = anchor ? anchor.sortOrder : next ? next.sortOrder - SORT_GAP * (input.rowIds.length + 1) : 0;
  const high = next ? next.sortOrder : low + SORT_GAP * (input.rowIds.length + 1);
  const step = (high - low) / (input.rowIds.length + 1);
  const keys = input.rowIds.map((_, i) => low + step * (i + 1));
  // Distinct, strictly between the neighbours: otherwise the gap is used up.
  const exhausted = keys.some((k, i) => !(k > low && k < high) || (i > 0 && k <= (keys[i - 1] as number)));
  if (exhausted) {
    await renumber(rt, principal, table.id);
    return reorderRows(rt, principal, input);
  }
  // Moves change no data: the counts carry over to the new generation unchanged.
  const { written } = await rt.counts.write(
    tenant,
    table.id,
    async () => {
      const written = await Promise.all(input.rowIds.map((id, i) => rt.repo.writeRow(tenant, rows.get(id) as DataTableRow, { sortOrder: keys[i] as number })));
      const [, touched] = await Promise.all([
        rt.repo.recordVersions(
          tenant,
          written.map((r) => versionOf(r, 'REORDER', principal.userId)),
          rt.historyLimit,
        ),
        rt.repo.touchTable(tenant, table.id, 0),
      ]);
      return { written, touched };
    },
    (r) => bumped(r.touched, []),
  );
  rowsChanged(
    rt,
    tenant,
    table.id,
    'reordered',
    written.map((r) => r.id),
  );
  return { moved: written.length };
}

/** Spreads every row of the table SORT_GAP apart again, keeping their order (rare). */
async function renumber(rt: DataTablesRuntime, principal: Principal, tableId: string): Promise<void> {
  let key = 0;
  const all: DataTableRow[] = [];
  for await (const chunk of rt.repo.allRows(principal.accountId, tableId)) all.push(...chunk);
  for (const row of all) {
    key += SORT_GAP;
    await rt.repo.renumberRow(principal.accountId, row, key);
  }
}
