export { createDataTablesSubgraph, type DataTablesDeps } from './app.js';
export { DataTableRepository } from './shared/data-table.repository.js';
export { COLUMN_TYPES } from './domain/data-table.js';
export type { ColumnType, DataTableColumnRecord, DataTableRecord } from './domain/data-table.js';
export { createDataTablesHttp, type DataTablesHttpOptions } from './features/import-export/http/datatables-http.js';
export { createDataTablesInternalHttp } from './features/player-rows/http/internal-http.js';
export { datatablesEnv } from './config.js';
export { IMPORT_JOB_KIND, registerImportJob } from './features/import-export/import-job.js';
export { playerRows, type PlayerRows } from './features/player-rows/player-rows.js';
