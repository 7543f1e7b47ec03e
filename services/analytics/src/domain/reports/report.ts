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

export interface ReportDefinition {
  id: string;
  name: string;
  description: string;
  /** Which of the export body's filters the report reads (the catalog lists them as parameters). */
  filters: { device: boolean; media: boolean; interval: boolean };
  columns: readonly ReportColumn[];
  chart: ReportChart;
  /** Device names are looked up for this column's ids and spliced into the SQL (kept for deleted devices as the id). */
  deviceColumn?: string;
  /** The table whose distinct device ids name the devices to look up. */
  table: 'play_logs' | 'ping_logs' | 'impressions' | 'event_logs';
  /** The SELECT for a validated request; `names` are the caller's device names by id. */
  sql(req: ReportRequest, names: { ids: string[]; names: string[] }): { sql: string; params: SqlParams };
}
