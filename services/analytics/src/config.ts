/**
 * Settings of the analytics subgraph process (main.ts), read by its entry and by the deployment
 * checks (launcher/src/role-configs.ts).
 */
import { envBool, envInt, envSubgraphUrl, jobFilesEnv, jobsEnv } from '@pylon/kit';

/** Report settings, in every process that serves POST /report/export (all-in-one, analytics). */
export const reportsEnv = {
  /**
   * Report exports whose scope holds more source records than this run as jobs (202 + Location:
   * /jobs/{id}; the file is downloaded through a signed link); smaller ones stream at once.
   * `Prefer: respond-async` asks for a job at any size.
   */
  REPORT_JOB_THRESHOLD_ROWS: envInt(500_000, 0, 1_000_000_000),
};

export const analyticsProcessEnv = {
  /**
   * true (default): the subgraph process consumes the stream too (the only way with embedded chDB,
   * whose data dir one process opens). false: the telemetry-consumer role does it (Kafka + ClickHouse).
   */
  ANALYTICS_RUN_INGEST: envBool(true),
  /** The subgraphs asked, for reports, whether device and media ids are the caller's (compose/k8s service names by default). */
  DEVICES_URL: envSubgraphUrl('devices'),
  CONTENT_URL: envSubgraphUrl('content'),
  /** The scheduling subgraph, asked for the names of the schedules proof of play lists. */
  SCHEDULING_URL: envSubgraphUrl('scheduling'),
  ...reportsEnv,
  ...jobsEnv,
  ...jobFilesEnv,
};
