/** Timestamps on every interface are ISO 8601 in the form YYYY-MM-DDTHH:MM:SSZ (spec, Conventions). */
const STORED_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$/;

/**
 * A stored instant in the interface form. Typed non-null for a present value, since stored instants
 * are valid by construction; an unparseable one still yields null (a non-null field then errors).
 */
export function isoSeconds(value: string | number | Date): string;
export function isoSeconds(value: string | number | Date | null | undefined): string | null;
export function isoSeconds(value: string | number | Date | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  // Stored instants are already UTC ISO strings: trimming beats a Date round trip on hot lists.
  if (typeof value === 'string' && STORED_UTC.test(value)) return `${value.slice(0, 19)}Z`;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Parses an ISO 8601 input; null when it is not a valid instant. */
export function parseInstant(value: unknown): Date | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * Zone formats kept, by the name asked for. Bounded: Intl takes a zone name in any letter case
 * (`europe/berlin`, `EUROPE/Berlin`), so callers' input could otherwise add entries without end;
 * the IANA names and their aliases (about 600) all fit, and past the bound the oldest goes.
 */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_ZONE_FORMATS = 1024;

/** The zone's wall-clock format, built once per zone (an Intl.DateTimeFormat costs about 0.3 ms); throws on a zone the runtime does not know. */
function zoneFormat(zone: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (zoneFormats.size >= MAX_ZONE_FORMATS) zoneFormats.delete(zoneFormats.keys().next().value!);
    zoneFormats.set(zone, f);
  }
  return f;
}

/** How many zone formats are kept (at most MAX_ZONE_FORMATS); for tests. */
export const zoneFormatsKept = (): number => zoneFormats.size;

/** True when the runtime knows `zone` as an IANA time zone (its format is then kept for wallAt). */
export function isKnownZone(zone: string): boolean {
  try {
    zoneFormat(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `zone` at instant `t` (ms), written as if it were UTC: Date.UTC(y, m, d, h, mi, s) plus t's milliseconds. */
export function wallAt(zone: string, t: number): number {
  const whole = Math.floor(t / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of zoneFormat(zone).formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) + (t - whole);
}
