import { JsonScalar, type Cache, type DocumentStore, type InternalTokens, type JobRunner, type Logger, type PubSub, type PushEvents } from '@pylon/kit';
import { createRuntimeSubgraph, type RuntimeSubgraph } from '@pylon/kit/serving';
import { DataTableRepository } from './shared/data-table.repository.js';
import { importExportResolvers } from './features/import-export/resolvers.js';
import { jobResolvers } from './features/jobs/resolvers.js';
import { rowHistoryResolvers } from './features/row-history/resolvers.js';
import { rowResolvers } from './features/rows/resolvers.js';
import { tableResolvers } from './features/tables/resolvers.js';
import type { DataTablesRuntime } from './runtime.js';
import { FilteredCounts } from './features/rows/filtered-counts.js';
import { registerExportJob } from './features/import-export/export-job.js';
import { registerImportJob } from './features/import-export/import-job.js';
import { TableChanges } from './features/rows/table-changes.js';

export interface DataTablesDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
  /** Row-read cache for tables with cacheTtlSeconds (Redis when scaled). */
  cache?: Cache;
  /** Versions kept per row (default 100); older ones are pruned as new ones are written. */
  historyLimit?: number;
  logger?: Logger;
  /** Rows one table may hold (DATATABLE_MAX_ROWS). */
  maxTableRows?: number;
  /** The process's jobs: imports over the threshold run there; the `job` query reads them. */
  jobs?: JobRunner;
  /** Push events (kit push-events.ts). */
  pushEvents?: PushEvents;
  /** Where table changes are announced (CHANNELS.dataTablesChanged: menu-board screens re-read their rows); none: not announced. */
  pubsub?: PubSub;
}

export const DEFAULT_HISTORY_LIMIT = 100;

/** The data tables subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createDataTablesSubgraph(deps: DataTablesDeps): RuntimeSubgraph<DataTablesRuntime> {
  const repo = new DataTableRepository(deps.documents);
  const changes = deps.pubsub ? new TableChanges(deps.pubsub, deps.logger) : undefined;
  const runtime: DataTablesRuntime = {
    repo,
    historyLimit: deps.historyLimit ?? DEFAULT_HISTORY_LIMIT,
    counts: new FilteredCounts(changes ? { afterWrite: (tenant, tableId) => changes.changed(tenant, tableId) } : {}),
    ...(deps.cache ? { cache: deps.cache } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.maxTableRows ? { maxTableRows: deps.maxTableRows } : {}),
    ...(deps.jobs ? { jobs: deps.jobs } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents } : {}),
  };
  if (deps.jobs) {
    registerImportJob(deps.jobs, runtime);
    // Large exports write their CSV through the runner's job files (when the process keeps them).
    registerExportJob(deps.jobs, runtime);
  }
  return createRuntimeSubgraph('datatables', deps.tokens, runtime, [
    jobResolvers,
    tableResolvers,
    rowResolvers,
    rowHistoryResolvers,
    importExportResolvers,
    () => ({ JSON: JsonScalar }),
  ]);
}
