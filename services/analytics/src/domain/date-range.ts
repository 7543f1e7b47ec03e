import { badInput } from '@pylon/kit';
import { instantOfWall } from './buckets.js';

/** A half-open time range [from, to) in UTC. */
export interface DateRange {
  from: Date;
  to: Date;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const DAY_MS = 86_400_000;
/** The years the analytics tables can hold (DateTime64). */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2299;

interface ParsedDate {
  instant: number;
  /** A calendar date without a time of day. */
  dateOnly: boolean;
  /** No offset or Z was written: `instant` reads the value as UTC. */
  local: boolean;
  /**
   * The precision written, in ms: a minute for HH:MM, a second for HH:MM:SS, 100/10/1 for one, two,
   * three or more fraction digits (a day for a date alone). An end is included at this precision.
   */
  unit: number;
}

/** The precision of a written time of day (see ParsedDate.unit). */
const unitOf = (seconds: string | undefined, frac: string) => (seconds === undefined ? 60_000 : frac ? 10 ** Math.max(0, 3 - frac.length) : 1000);

/**
 * Parses an ISO 8601 date or date-time (spec: analytics dates are ISO 8601 strings). A value
 * without a zone is UTC, so the result never depends on the server's time zone. Impossible
 * calendar values (2024-02-30, 25:00) are refused rather than rolled over.
 */
export function parseIsoDate(value: string, field: string): ParsedDate {
  const m = ISO.exec(value);
  const invalid = () => badInput(field, `${field} must be an ISO 8601 date or date-time, e.g. 2024-01-31 or 2024-01-31T12:00:00Z`);
  if (!m) throw invalid();
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalid();
  if (year < MIN_YEAR || year > MAX_YEAR) throw badInput(field, `${field} must lie in the years ${MIN_YEAR} to ${MAX_YEAR}`);
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2)),
      om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) throw invalid();
    offsetMinutes = sign * (oh * 60 + om);
  }
  const ms = Number((frac + '000').slice(0, 3));
  const instant = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s), ms) - offsetMinutes * 60_000;
  const dateOnly = m[4] === undefined;
  return { instant, dateOnly, local: m[8] === undefined, unit: dateOnly ? DAY_MS : unitOf(m[6], frac) };
}

/**
 * The instant a value without an offset names in `zone`: its wall clock there (read as UTC by
 * parseIsoDate) mapped with the bucket engine's zone arithmetic, so a date's midnight is exactly
 * where that zone's DAY period starts. A wall time the clock skipped (a DST gap, e.g. midnight in
 * America/Sao_Paulo on the day DST began before 2019) is the instant the clock jumped over it; a
 * repeated one its first occurrence.
 */
function inZone(wall: number, zone: string): number {
  const ms = ((wall % 1000) + 1000) % 1000;
  return instantOfWall(wall - ms, zone) + ms;
}

/**
 * The range startDate..endDate, both ends included at the precision written: a date-only endDate
 * covers that whole day, `...T01:18:47Z` that whole second (records are stamped in ms and shown in
 * whole seconds, so a ping shown as 01:18:47Z is inside 01:18:47Z..01:18:47Z), `...T01:18Z` that
 * minute. Refuses a range that ends before it starts.
 *
 * `timeZone` (an IANA zone, already checked; default UTC) is the zone the person reads the dates
 * in: a date-only startDate is that date's midnight there, a date-only endDate runs to the next
 * midnight there (23 or 25 hours on DST days), and a date-time without an offset is that wall time
 * there. A value with an offset or Z is that instant whatever the zone.
 */
export function parseDateRange(startDate: string, endDate: string, timeZone = 'UTC'): DateRange {
  const start = parseIsoDate(startDate, 'startDate');
  const end = parseIsoDate(endDate, 'endDate');
  const at = (p: ParsedDate) => (p.local && timeZone !== 'UTC' ? inZone(p.instant, timeZone) : p.instant);
  const from = at(start);
  const to = end.dateOnly ? at({ ...end, instant: end.instant + DAY_MS }) : at(end) + end.unit;
  if (to <= from) throw badInput('endDate', 'endDate must not be before startDate');
  return { from: new Date(from), to: new Date(to) };
}
