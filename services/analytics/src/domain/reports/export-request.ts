/**
 * POST /report/export's body (the reference's ReportExportPostBody) checked into a ReportRequest.
 * Every refusal names the property (`field`), so a client sees which value to fix. Unknown
 * properties are refused (the reference schema has additionalProperties: false).
 */
import { AppError, badInput } from '@pylon/kit';
import { parseIsoDate } from '../date-range.js';
import { reportById } from './catalog.js';
import type { ReportDefinition, ReportFormat, ReportInterval, ReportRequest } from './report.js';

/** Limits: ids per filter, range length, periods per export, rows a PDF lists. */
export const REPORT_LIMITS = { maxIds: 1000, maxIdLength: 200, maxRangeDays: 400, maxPeriods: 10_000 } as const;

const KNOWN = new Set([
  'report_id',
  'format',
  'activity_type',
  'interval_type',
  'start_date',
  'end_date',
  'start_time',
  'end_time',
  'device_id',
  'user_id',
  'media_id',
]);
const FORMATS: readonly ReportFormat[] = ['CSV', 'EXCEL', 'PDF'];
const REFERENCE_FORMATS = ['XML', 'IMAGE', 'WORD', 'HTML', 'MHTML'];
const INTERVALS: readonly ReportInterval[] = ['Minute', 'Hour', 'Day', 'Month'];
const INTERVAL_MS: Record<ReportInterval, number> = { Minute: 60_000, Hour: 3_600_000, Day: 86_400_000, Month: 28 * 86_400_000 };
const DAY_MS = 86_400_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

function ids(body: Record<string, unknown>, field: string): string[] {
  const v = body[field];
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw badInput(field, `${field} must be an array of ids`);
  if (v.length > REPORT_LIMITS.maxIds) throw badInput(field, `${field} may name at most ${REPORT_LIMITS.maxIds} ids`);
  v.forEach((id, i) => {
    if (typeof id !== 'string' || id.length === 0 || id.length > REPORT_LIMITS.maxIdLength)
      throw badInput(`${field}[${i}]`, `${field}[${i}] must be a non-empty string of at most ${REPORT_LIMITS.maxIdLength} characters`);
  });
  return [...new Set(v as string[])];
}

function instant(body: Record<string, unknown>, field: string, required: boolean): { instant: number; dateOnly: boolean } | null {
  const v = body[field];
  if (absent(v)) {
    if (required) throw badInput(field, `${field} is required (ISO 8601, e.g. 2024-05-01T00:00:00Z)`);
    return null;
  }
  if (typeof v !== 'string') throw badInput(field, `${field} must be an ISO 8601 date-time string`);
  return parseIsoDate(v, field);
}

function choice<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[], fallback: T): T {
  const v = body[field];
  if (absent(v)) return fallback;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  const extra = field === 'format' && typeof v === 'string' && REFERENCE_FORMATS.includes(v) ? ` (${v} is not offered)` : '';
  throw badInput(field, `${field} must be one of ${allowed.join(', ')}${extra}`);
}

const secondsOfDay = (ms: number) => Math.floor((((ms % DAY_MS) + DAY_MS) % DAY_MS) / 1000);

/** The checked request (ids not yet checked against the account: see check-ids.ts). */
export function parseExportRequest(accountId: string, body: unknown): { report: ReportDefinition; request: ReportRequest } {
  if (!isRecord(body)) throw badInput('body', 'the body must be a JSON object (ReportExportPostBody)');
  for (const k of Object.keys(body)) if (!KNOWN.has(k)) throw badInput(k.slice(0, 50), `unknown property '${k.slice(0, 50)}'`);
  const id = body.report_id;
  if (typeof id !== 'string' || id.length === 0) throw badInput('report_id', 'report_id is required (GET /report lists the reports)');
  const report = reportById(id);
  if (!report) throw badInput('report_id', `report_id '${id.slice(0, 100)}' is not a report (GET /report lists them)`);
  for (const field of ['activity_type', 'user_id'] as const) {
    const v = body[field];
    if (!absent(v) && !(Array.isArray(v) && v.length === 0) && v !== '') throw badInput(field, `${field} is not a filter of ${report.id}; leave it out`);
  }
  const format = choice(body, 'format', FORMATS, 'CSV');
  const interval = choice(body, 'interval_type', INTERVALS, 'Day');
  if (!report.filters.interval && !absent(body.interval_type)) throw badInput('interval_type', `${report.id} has no periods; leave interval_type out`);
  const start = instant(body, 'start_date', true)!;
  const end = instant(body, 'end_date', true)!;
  const from = start.instant;
  const to = end.instant + (end.dateOnly ? DAY_MS : 1);
  if (to <= from) throw badInput('end_date', 'end_date must not be before start_date');
  if (to - from > REPORT_LIMITS.maxRangeDays * DAY_MS) throw badInput('end_date', `a report covers at most ${REPORT_LIMITS.maxRangeDays} days`);
  // The periods the range touches (one more when it starts or ends inside one), as the series counts them.
  if (Math.ceil(to / INTERVAL_MS[interval]) - Math.floor(from / INTERVAL_MS[interval]) > REPORT_LIMITS.maxPeriods)
    throw badInput('interval_type', `${interval} periods over this range exceed ${REPORT_LIMITS.maxPeriods}; choose a longer interval_type or a shorter range`);
  const ts = instant(body, 'start_time', false);
  const te = instant(body, 'end_time', false);
  if ((ts === null) !== (te === null)) throw badInput(ts ? 'end_time' : 'start_time', 'start_time and end_time go together');
  if (ts && !report.filters.timeOfDay) throw badInput('start_time', `${report.id} has no daily window; leave start_time and end_time out`);
  const timeOfDay = ts && te ? { start: secondsOfDay(ts.instant), end: secondsOfDay(te.instant) } : null;
  if (timeOfDay && timeOfDay.end < timeOfDay.start) throw badInput('end_time', 'end_time must not be before start_time in the day (UTC)');
  const deviceIds = ids(body, 'device_id');
  const mediaIds = ids(body, 'media_id');
  if (mediaIds.length && !report.filters.media) throw badInput('media_id', `${report.id} has no media filter; leave media_id out`);
  if (deviceIds.length && !report.filters.device) throw badInput('device_id', `${report.id} has no device filter; leave device_id out`);
  return { report, request: { accountId, format, interval, from: new Date(from), to: new Date(to), timeOfDay, deviceIds, mediaIds } };
}

/** A query parameter the route accepts: exclude_body (the reference stores reports; Pylon streams them). */
export function checkExportQuery(query: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(query)) {
    if (k === 'api_key') continue;
    if (k !== 'exclude_body') throw new AppError('VALIDATION_FAILED', `unknown query parameter '${k.slice(0, 50)}'`, { field: k.slice(0, 50) });
    if (v !== 'false') throw badInput('exclude_body', 'exclude_body=true is not offered: reports are streamed in the response, not stored');
  }
}
