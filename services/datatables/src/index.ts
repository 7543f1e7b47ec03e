export { createDataTablesSubgraph, type DataTablesDeps } from './app.js';
export { DataTableRepository } from './repositories/data-table.repository.js';
export { COLUMN_TYPES } from './domain/data-table.js';
export type { ColumnType, DataTableColumnRecord, DataTableRecord } from './domain/data-table.js';
export { createDataTablesHttp, type DataTablesHttpOptions } from './http/datatables-http.js';
export { createDataTablesInternalHttp } from './http/internal-http.js';
export { datatablesEnv } from './config.js';
export { IMPORT_JOB_KIND, registerImportJob } from './use-cases/import-job.js';
export { playerRows, type PlayerRows } from './use-cases/player-rows.js';
