/**
 * Time buckets of the analytics series: pure (no I/O, no clock), proved by
 * test/unit/buckets.property.test.ts.
 *
 * A bucket is the half-open interval [start, end) of instants (epoch ms) whose wall clock in the
 * zone falls in one period:
 *   MINUTE, HOUR  the wall clock's minute / hour (in a zone with a fractional offset, e.g.
 *                 Asia/Kolkata, an hour starts at :30 UTC); across a DST change the repeated or
 *                 skipped wall hour is its own bucket, as the clock shows it.
 *   DAY           local midnight to local midnight: 23 h or 25 h on DST days.
 *   WEEK          Monday 00:00 to Monday 00:00 (ISO weeks), local.
 *   MONTH         the 1st 00:00 to the next 1st 00:00, local.
 * The SQL side computes the same starts with ClickHouse's toStartOf* functions in the same zone
 * (sql/bucket.sql.ts); the subgraph test checks both agree on DST days.
 */
import { badInput, isKnownZone, wallAt } from '@pylon/kit';

export const INTERVALS = ['MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface Bucket {
  start: number;
  end: number;
}

/** At most this many periods in one series: a MINUTE series is about a week. */
export const MAX_BUCKETS = 10_000;

/** A minute in ms (uptime counts minutes; the MINUTE interval's step). */
export const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The wall clock in `zone` at instant `t`, as if it were UTC (epoch ms, whole seconds). */
export function wallClock(t: number, zone: string): number {
  const whole = t - (((t % 1000) + 1000) % 1000);
  return zone === 'UTC' ? whole : wallAt(zone, whole);
}

/** Offset of the zone at instant t (wall - utc), in ms. */
const offsetAt = (t: number, zone: string) => wallClock(t, zone) - (t - (((t % 1000) + 1000) % 1000));

/**
 * The first instant whose wall clock in `zone` shows `wall` or later (a wall time skipped by a
 * DST change gives the instant the clock jumped over it; a repeated one its first occurrence).
 */
export function instantOfWall(wall: number, zone: string): number {
  if (zone === 'UTC') return wall;
  // Offsets never exceed 14 h; the candidates are the offsets in force around the wall time.
  const offsets = new Set([offsetAt(wall - DAY, zone), offsetAt(wall, zone), offsetAt(wall + DAY, zone)]);
  const exact = [...offsets].map((o) => wall - o).filter((t) => wallClock(t, zone) === wall);
  if (exact.length) return Math.min(...exact);
  // In a gap: the clock jumped from before `wall` to after it at the transition; find it.
  let lo = wall - 14 * HOUR,
    hi = wall + 14 * HOUR;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (wallClock(mid, zone) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The first instant of (from, to] (whole seconds) in the offset in force at `to`. */
function transitionBetween(from: number, to: number, zone: string): number {
  const offset = offsetAt(to, zone);
  let lo = from,
    hi = to - (((to % 1000) + 1000) % 1000);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, zone) === offset) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Is `zone` an IANA zone this runtime knows? */
export function isTimeZone(zone: string): boolean {
  if (zone.length > 64) return false;
  // Keeps the zone's format (the periods of that zone need it): a valid zone is checked once per process.
  return isKnownZone(zone);
}

/** Start of the bucket holding instant t. */
export function bucketStart(t: number, interval: Interval, zone: string): number {
  const wall = wallClock(t, zone);
  const ms = ((t % 1000) + 1000) % 1000;
  switch (interval) {
    case 'MINUTE':
    case 'HOUR': {
      const start = t - ms - (wall % (interval === 'MINUTE' ? MINUTE : HOUR));
      // A zone whose offset changes by less than an hour (Australia/Lord_Howe: 30 minutes) can
      // change it inside a clock hour: the hour of t then starts at that change, not before it in
      // another offset (where it would overlap the hour the clock showed then).
      return offsetAt(start, zone) === offsetAt(t, zone) ? start : transitionBetween(start, t, zone);
    }
    case 'DAY':
      return instantOfWall(wall - (wall % DAY), zone);
    case 'WEEK': {
      const day = wall - (wall % DAY);
      const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0
      return instantOfWall(day - weekday * DAY, zone);
    }
    case 'MONTH': {
      const d = new Date(wall);
      return instantOfWall(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), zone);
    }
  }
}

/** Start of the bucket after the one starting at `start`. */
export function nextBucketStart(start: number, interval: Interval, zone: string): number {
  const wall = wallClock(start, zone);
  switch (interval) {
    case 'MINUTE':
    case 'HOUR': {
      // Clock buckets are at least 15 minutes apart in UTC terms (offsets are multiples of 15
      // minutes), so the first 15-minute step landing in another bucket finds the next one.
      const step = interval === 'MINUTE' ? MINUTE : 15 * MINUTE;
      for (let t = start + step; ; t += step) {
        const b = bucketStart(t, interval, zone);
        if (b > start) return b;
      }
    }
    case 'DAY':
      return instantOfWall(wall - (wall % DAY) + DAY, zone);
    case 'WEEK':
      return instantOfWall(wall - (wall % DAY) + 7 * DAY, zone);
    case 'MONTH': {
      const d = new Date(wall);
      return instantOfWall(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), zone);
    }
  }
}

/**
 * Every bucket meeting [from, to), in order, contiguous: the first starts at or before `from`,
 * the last ends at or after `to`. Refuses (naming `interval`) a series of more than MAX_BUCKETS.
 */
export function bucketsOf(range: { from: Date; to: Date }, interval: Interval, zone: string): Bucket[] {
  const from = range.from.getTime(),
    to = range.to.getTime();
  const out: Bucket[] = [];
  for (let s = bucketStart(from, interval, zone); s < to;) {
    const e = nextBucketStart(s, interval, zone);
    out.push({ start: s, end: e });
    if (out.length > MAX_BUCKETS)
      throw badInput('interval', `interval ${interval} gives more than ${MAX_BUCKETS} periods for this range; choose a longer interval or a shorter range`);
    s = e;
  }
  return out;
}
