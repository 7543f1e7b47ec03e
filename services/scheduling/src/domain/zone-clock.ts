/**
 * Wall-clock arithmetic in an IANA time zone, over the Intl API (the platform's tz database; no
 * offsets are written here). Pure: no I/O; the memo below only caches answers of pure functions.
 *
 * Vocabulary: a *wall* value is a local date-time written as if it were UTC milliseconds
 * (Date.UTC(y, m, d, h, mi, s)); a *day* is a local calendar date as days since 1970-01-01.
 *
 * The DST rule, stated once: a wall time maps to the FIRST instant at which the device's clock
 * shows that time or later. So
 *   - in the spring-forward gap (02:30 on a night the clock jumps 02:00 -> 03:00) it maps to the
 *     jump itself (03:00 new time): a window "02:30-04:00" starts when the clock shows 03:00, and
 *     a window lying wholly inside the gap ("02:10-02:50") does not play that night;
 *   - in the fall-back overlap (02:30 shown twice) it maps to the first pass: a window "02:00-03:00"
 *     plays from the first 02:00 until the clock shows 03:00, two real hours; "01:00-02:30" ends at
 *     the first 02:30 and does not play again when the clock falls back. No window plays twice a day.
 */

import { isKnownZone, wallAt } from '@pylon/kit';

export const DAY_MS = 86_400_000;
const MAX_MEMO = 20_000;

/** True when the platform knows `zone` as an IANA time zone. */
export const isTimeZone = isKnownZone;

/** The local wall value of instant `t` (ms) in `zone`. */
export { wallAt };

const offsetAt = (zone: string, t: number) => wallAt(zone, t) - t;

const memo = new Map<string, number>();

/** The first instant at which the clock in `zone` shows `wall` or later (the rule above). */
export function instantOfWall(zone: string, wall: number): number {
  const key = `${zone}|${wall}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  const answer = computeInstant(zone, wall);
  if (memo.size >= MAX_MEMO) memo.clear();
  memo.set(key, answer);
  return answer;
}

function computeInstant(zone: string, wall: number): number {
  // Zones change offset at most once around a given day, so the offsets a day before and after
  // are the only candidates.
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const candidates = [wall - before, wall - after].sort((a, b) => a - b);
  for (const t of candidates) if (wallAt(zone, t) === wall) return t;
  // In a gap: the clock jumps over `wall`; the answer is the jump, found to the second.
  let lo = Math.min(...candidates);
  let hi = Math.max(...candidates);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (wallAt(zone, mid) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The local calendar day (days since 1970-01-01) of instant `t` in `zone`. */
const dayMemo = new Map<string, number>();

/** The local calendar day at instant t. Memoized like instantOfWall: the engine asks it at the same occurrence boundaries on every resolution. */
export function dayAt(zone: string, t: number): number {
  const key = `${zone}|${t}`;
  const hit = dayMemo.get(key);
  if (hit !== undefined) return hit;
  const day = Math.floor(wallAt(zone, t) / DAY_MS);
  if (dayMemo.size >= MAX_MEMO) dayMemo.clear();
  dayMemo.set(key, day);
  return day;
}

/** 0 = Monday ... 6 = Sunday. */
export const weekdayOf = (day: number): number => (((day + 3) % 7) + 7) % 7;

/** 'YYYY-MM-DD...' -> day number (the date part only). */
export const dayOfDate = (iso: string): number => Math.floor(Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / DAY_MS);

/** Day number -> 'YYYY-MM-DD'. */
export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
