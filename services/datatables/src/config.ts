/** The data tables' settings (spread into each composition root's env schema). */
import { envInt, jobsEnv } from '@pylon/kit';

export const datatablesEnv = {
  /** Imports whose file is larger than this many bytes run as jobs (202 + GET /jobs/{id}); smaller ones answer at once. */
  IMPORT_JOB_THRESHOLD_BYTES: envInt(1024 * 1024, 0, 100 * 1024 * 1024),
  /** Rows one data table may hold; an import that would pass it stops there (PAYLOAD_TOO_LARGE). */
  DATATABLE_MAX_ROWS: envInt(2_000_000, 1000, 100_000_000),
};

/** The datatables process's own settings in distributed mode (main.ts): the above and the job runner's. */
export const datatablesProcessEnv = { ...datatablesEnv, ...jobsEnv };
