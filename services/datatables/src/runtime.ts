import type { Cache, Logger } from '@pylon/kit';
import type { DataTableRepository } from './data-table.repository.js';

/** What the data tables use cases work with, built once by app.ts. */
export interface DataTablesRuntime {
  repo: DataTableRepository;
  /** Versions kept per row; older ones are pruned as new ones are written. */
  historyLimit: number;
  /** Row-read cache (tables with cacheTtlSeconds > 0); absent: nothing cached. */
  cache?: Cache;
  logger?: Logger;
  /**
   * Filtered row counts of this process, by table generation (see read-rows.ts): a count stays
   * right until the next write bumps the generation, so it needs no expiry, only a size bound.
   */
  counts?: Map<string, number>;
}
