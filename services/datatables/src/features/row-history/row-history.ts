/**
 * Row history: every write records the row as it stands after it (version = the row's rev).
 * A rollback writes the snapshot's data (projected onto today's columns) as a new version; a
 * deleted row comes back under its id, its version continuing from the DELETE version.
 */
import { badInput, notFound, type Principal } from '@pylon/kit';
import { projectData, sortSlots } from '../../domain/cells.js';
import type { DataTableRow, DataTableRowVersion } from '../../shared/data-table.repository.js';
import { rowsChanged, type DataTablesRuntime } from '../../runtime.js';
import { bumped } from '../rows/filtered-counts.js';
import { getDataTable } from '../tables/get-data-table.js';
import { assertRoom, checkVersion, versionOf } from '../rows/row-writes.js';

const MAX_LISTED = 1000;

/** A row's history, newest first; with `where` / `order`, those versions in that order (at most 1000). */
export async function listRowVersions(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  rowId: string,
  q: { where?: unknown; order?: unknown } = {},
): Promise<DataTableRowVersion[]> {
  const table = await getDataTable(rt.repo, principal, tableId);
  const filtered = (q.where !== undefined && q.where !== null) || (q.order !== undefined && q.order !== null);
  if (filtered) {
    const versions = await rt.repo.searchVersions(principal.accountId, table.id, rowId, { where: q.where, order: q.order, limit: MAX_LISTED });
    // An empty answer is a row without history (NOT_FOUND), or a where nothing matched ([]).
    if (versions.length === 0 && (await rt.repo.listVersions(principal.accountId, table.id, rowId, 1)).length === 0) throw notFound('row', rowId);
    return versions;
  }
  const versions = await rt.repo.listVersions(principal.accountId, table.id, rowId, MAX_LISTED);
  if (versions.length === 0) throw notFound('row', rowId);
  return versions;
}

export async function getRowVersion(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  rowId: string,
  version: number,
): Promise<DataTableRowVersion> {
  const table = await getDataTable(rt.repo, principal, tableId);
  const v = await rt.repo.getVersion(principal.accountId, table.id, rowId, version);
  if (!v) throw notFound(`version ${version} of row`, rowId);
  return v;
}

export async function rollbackRow(
  rt: DataTablesRuntime,
  principal: Principal,
  input: { tableId: string; rowId: string; version: number; expectedVersion?: number | null },
): Promise<{ newVersion: number; restoredRow: DataTableRow }> {
  if (!Number.isInteger(input.version) || input.version < 1) throw badInput('version', 'version must be a positive integer');
  const tenant = principal.accountId;
  const table = await getDataTable(rt.repo, principal, input.tableId);
  const snapshot = await rt.repo.getVersion(tenant, table.id, input.rowId, input.version);
  if (!snapshot) throw notFound(`version ${input.version} of row`, input.rowId);
  const data = projectData(table.columns, snapshot.data);
  const ix = sortSlots(table.columns, data);
  const current = await rt.repo.getRow(tenant, table.id, input.rowId);
  // A deleted row coming back is one more row.
  if (!current) assertRoom(rt, table, 1, 'rowId');
  const { restored } = await rt.counts.write(
    tenant,
    table.id,
    async () => {
      let restored: DataTableRow;
      if (current) {
        checkVersion(current, input.expectedVersion, 'expectedVersion');
        restored = await rt.repo.writeRow(tenant, current, { data, ix });
      } else {
        const latest = await rt.repo.latestVersion(tenant, table.id, input.rowId);
        const rev = (latest?.rev ?? 0) + 1;
        if (input.expectedVersion !== null && input.expectedVersion !== undefined && input.expectedVersion !== latest?.rev) {
          checkVersion({ id: input.rowId, rev: latest?.rev ?? 0 } as DataTableRow, input.expectedVersion, 'expectedVersion');
        }
        restored = await rt.repo.restoreRow(tenant, { id: input.rowId, tableId: table.id, sortOrder: snapshot.sortOrder, data, ix, rev });
      }
      const [, touched] = await Promise.all([
        rt.repo.recordVersions(tenant, [versionOf(restored, 'ROLLBACK', principal.userId)], rt.historyLimit),
        rt.repo.touchTable(tenant, table.id, current ? 0 : 1),
      ]);
      return { restored, touched };
    },
    (r) => bumped(r.touched, [{ before: current?.data ?? null, after: r.restored.data }]),
  );
  rowsChanged(rt, tenant, table.id, 'rolled_back', [restored.id]);
  return { newVersion: restored.rev, restoredRow: restored };
}
