/** The reports offered, in the order GET /report lists them, and their catalog entries (the reference's `Report`). */
import { audienceSummary } from './definitions/audience-summary.report.js';
import { deviceActivity } from './definitions/device-activity.report.js';
import { deviceUptime } from './definitions/device-uptime.report.js';
import { eventSummary } from './definitions/event-summary.report.js';
import { mediaPerformance } from './definitions/media-performance.report.js';
import { proofOfPlay } from './definitions/proof-of-play.report.js';
import type { ReportDefinition, ReportParameter } from './report.js';

export const REPORTS: readonly ReportDefinition[] = [proofOfPlay, deviceUptime, audienceSummary, mediaPerformance, deviceActivity, eventSummary];

export const reportById = (id: string): ReportDefinition | undefined => REPORTS.find((r) => r.id === id);

/** The reference's Report: id, name, description, parameters (the export body's properties the report reads). */
export interface ReportEntry {
  id: string;
  name: string;
  description: string;
  parameters: ReportParameter[];
}

export function catalogEntry(r: ReportDefinition): ReportEntry {
  const p = (id: string, name: string, required = false, multi = false): ReportParameter => ({ id, name, required, multi_value: multi });
  const parameters = [
    p('start_date', 'Start (ISO 8601, UTC unless an offset is given)', true),
    p('end_date', 'End (ISO 8601; a date without a time includes that whole day)', true),
    p('format', 'File format: CSV, EXCEL or PDF (default CSV)'),
  ];
  if (r.filters.interval) parameters.push(p('interval_type', 'Period: Minute, Hour, Day (default) or Month'));
  if (r.filters.device) parameters.push(p('device_id', 'Only these devices', false, true));
  if (r.filters.media) parameters.push(p('media_id', 'Only these media files', false, true));
  if (r.filters.timeOfDay) {
    parameters.push(p('start_time', 'Daily window start: only the time of day of this date-time (UTC) is used'));
    parameters.push(p('end_time', 'Daily window end (inclusive): only the time of day of this date-time (UTC) is used'));
  }
  return { id: r.id, name: r.name, description: r.description, parameters };
}
