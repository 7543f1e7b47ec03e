import type { Cache, JobRunner, Logger, PushEvents } from '@pylon/kit';
import type { DataTableRepository } from './shared/data-table.repository.js';
import type { FilteredCounts } from './features/rows/filtered-counts.js';

/** What the data tables use cases work with, built once by app.ts. */
export interface DataTablesRuntime {
  repo: DataTableRepository;
  /** Versions kept per row; older ones are pruned as new ones are written. */
  historyLimit: number;
  /** Row-read cache (tables with cacheTtlSeconds > 0); absent: nothing cached. */
  cache?: Cache;
  logger?: Logger;
  /** Rows a table may hold (DATATABLE_MAX_ROWS); imports, row creates, batches and rollbacks of deleted rows stop there. Absent: no cap beyond the import's own. */
  maxTableRows?: number;
  /** The process's jobs (GraphQL `job` / `cancelJob`); absent: no jobs here. */
  jobs?: JobRunner;
  /** Filtered row counts of this process, kept exact across its writes (use-cases/filtered-counts.ts). */
  counts: FilteredCounts;
  /** Push events (datatable.rows_changed); absent: not produced. */
  pushEvents?: PushEvents;
}

/** datatable.rows_changed after a row write is stored (at most 100 ids named; row_count says how many). */
export function rowsChanged(
  rt: Pick<DataTablesRuntime, 'pushEvents'>,
  tenant: string,
  tableId: string,
  change: string,
  rowIds: readonly string[],
  rowCount = rowIds.length,
): void {
  if (rowCount === 0) return;
  rt.pushEvents?.emit(tenant, 'datatable.rows_changed', { datatable_id: tableId, change, row_ids: rowIds.slice(0, 100), row_count: rowCount });
}
