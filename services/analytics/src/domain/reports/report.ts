/**
 * What a report is: a catalog entry (the reference's `Report` shape: id, name, description,
 * parameters), typed columns, and the SQL that reads its rows from the raw telemetry tables
 * (kit/migrations/analytics/001_telemetry.sql). The SQL selects exactly the column keys, in order,
 * and is always scoped to the caller's account and range; only validated values are bound, as
 * `{name:Type}` parameters.
 */
import type { SqlParams } from '@pylon/kit';

/** How a column's cells are typed in XLSX and formatted in CSV/PDF. */
export type ColumnType = 'text' | 'datetime' | 'integer' | 'seconds' | 'percent';

export interface ReportColumn {
  key: string;
  title: string;
  type: ColumnType;
  /** Summed into the totals (integers exactly; seconds in whole milliseconds). */
  total?: boolean;
  /** Averaged over the rows in the summary (the mean of the printed cells, two decimals). */
  average?: boolean;
  /** Relative width in the PDF table and XLSX sheet. */
  width: number;
}

/** One cell: text, a number, or an ISO 8601 instant (datetime columns). */
export type Cell = string | number;

export type ReportFormat = 'CSV' | 'EXCEL' | 'PDF';
export type ReportInterval = 'Minute' | 'Hour' | 'Day' | 'Month';

/** The reference's ReportParameter. */
export interface ReportParameter {
  id: string;
  name: string;
  required: boolean;
  multi_value: boolean;
}

/** A validated export request; ids are the caller's (checked before any row is read). */
export interface ReportRequest {
  accountId: string;
  format: ReportFormat;
  interval: ReportInterval;
  from: Date;
  to: Date;
  /** Seconds since midnight UTC: only rows whose time of day is in [start, end] (start_time/end_time). */
  timeOfDay: { start: number; end: number } | null;
  deviceIds: string[];
  mediaIds: string[];
}

/** The chart drawn in the PDF: rows grouped by the period of `category`, `value` aggregated. */
export interface ReportChart {
  title: string;
  /** A datetime column, bucketed by the request's interval. */
  category: string;
  /** A numeric column, or 'rows' to count rows. */
  value: string;
  aggregate: 'sum' | 'avg' | 'count';
}

/**
 * One device and period of deviceMetrics (the GraphQL query's record: the fields a report reads),
 * so a report's uptime is the query's uptime (one source per fact).
 */
export interface DevicePeriodHealth {
  deviceId: string;
  /** ISO 8601 instant, UTC. */
  periodStart: string;
  uptimePercentage: number;
  avgCpuUsage: number;
  maxCpuUsage: number;
  avgMemoryUsage: number;
  maxMemoryUsage: number;
  alertCount: number;
}

interface ReportBase {
  id: string;
  name: string;
  description: string;
  /** Which of the export body's filters the report reads (the catalog lists them as parameters). */
  filters: { device: boolean; media: boolean; interval: boolean; timeOfDay: boolean };
  columns: readonly ReportColumn[];
  chart: ReportChart;
  /**
   * The column keys the digest covers, in order (report-rows.ts): the facts of a row that a later
   * re-export of the same records repeats, never a name looked up at export time.
   */
  digest: readonly string[];
  /** The table whose distinct device ids name the devices to look up (and whose records estimate the rows). */
  table: 'play_logs' | 'ping_logs' | 'impressions' | 'event_logs';
}

/** Names looked up at export time: parallel arrays of ids and names, spliced into the SQL with transform(). */
export interface NameLookup {
  ids: string[];
  names: string[];
}

/** The device names (`ids`, `names`) and, for reports with `playbackNames`, the playlists' and schedules'. */
export interface ReportNames extends NameLookup {
  playlists: NameLookup;
  schedules: NameLookup;
}

/** A report whose rows are one streamed SELECT. */
export interface SqlReport extends ReportBase {
  kind: 'sql';
  /** Device names are looked up for this column's ids and spliced into the SQL (kept for deleted devices as the id). */
  deviceColumn?: string;
  /** The rows carry play_logs' playlist_id and schedule_id: their names are looked up (empty when deleted). */
  playbackNames?: boolean;
  /** The SELECT for a validated request; `names` are the caller's names by id. */
  sql(req: ReportRequest, names: ReportNames): { sql: string; params: SqlParams };
}

/**
 * A report with one row per device and period, read through deviceMetrics' repository function:
 * every device of the account (or of device_id) for every period begun by the time of the export,
 * a period without data as the zero record.
 */
export interface DeviceSeriesReport extends ReportBase {
  kind: 'device-series';
  /** The row (keyed by column key) of one device and period. */
  row(point: DevicePeriodHealth, deviceName: string): Record<string, Cell>;
}

export type ReportDefinition = SqlReport | DeviceSeriesReport;
