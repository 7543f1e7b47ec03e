import type { Cache, JobRunner, Logger } from '@pylon/kit';
import type { DataTableRepository } from './data-table.repository.js';
import type { FilteredCounts } from './use-cases/filtered-counts.js';

/** What the data tables use cases work with, built once by app.ts. */
export interface DataTablesRuntime {
  repo: DataTableRepository;
  /** Versions kept per row; older ones are pruned as new ones are written. */
  historyLimit: number;
  /** Row-read cache (tables with cacheTtlSeconds > 0); absent: nothing cached. */
  cache?: Cache;
  logger?: Logger;
  /** Rows a table may hold (DATATABLE_MAX_ROWS); imports stop there. Absent: no cap beyond the import's own. */
  maxTableRows?: number;
  /** The process's jobs (GraphQL `job` / `cancelJob`); absent: no jobs here. */
  jobs?: JobRunner;
  /** Filtered row counts of this process, kept exact across its writes (use-cases/filtered-counts.ts). */
  counts: FilteredCounts;
}
