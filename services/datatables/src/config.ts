/** The data tables' settings (spread into each composition root's env schema). */
import { envInt, jobFilesEnv, jobsEnv } from '@pylon/kit';

export const datatablesEnv = {
  /** Imports whose file is larger than this many bytes run as jobs (202 + GET /jobs/{id}); smaller ones answer at once. */
  IMPORT_JOB_THRESHOLD_BYTES: envInt(1024 * 1024, 0, 100 * 1024 * 1024),
  /**
   * Exports of tables with more rows than this run as jobs (GET .../rows/export answers 202 + Location:
   * /jobs/{id}; the CSV is written to the blob store and downloaded through a signed link); smaller
   * ones stream at once. `Prefer: respond-async` asks for a job at any size.
   */
  EXPORT_JOB_THRESHOLD_ROWS: envInt(100_000, 0, 100_000_000),
  /** Rows one data table may hold; an import that would pass it stops there (PAYLOAD_TOO_LARGE). */
  DATATABLE_MAX_ROWS: envInt(2_000_000, 1000, 100_000_000),
};

/** The datatables process's own settings in distributed mode (main.ts): the above and the job runner's. */
export const datatablesProcessEnv = { ...datatablesEnv, ...jobsEnv, ...jobFilesEnv };
