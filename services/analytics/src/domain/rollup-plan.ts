/**
 * Raw table or rollup: pure, proved by test/unit/rollup-plan.property.test.ts and, against the
 * store, by test/rollup-agreement.property.test.ts (raw and rollup answers agree).
 *
 * A rollup of grain g (UTC minutes, hours or days, kit/migrations/analytics/003_rollups.sql,
 * 004_audience_rollups.sql, 006_distinct_rollups.sql and 009_day_rollups.sql) holds sums (or, for distinct counts,
 * minute masks and distinct visitor rows) per g-period. It answers a series exactly when every boundary the answer depends on (the
 * range's ends and each period start inside the range) is a multiple of g in UTC: then every
 * g-period lies wholly inside one answer period, or wholly outside the range. The coarsest such
 * grain reads the fewest rows. A day in Europe/Berlin starts at 22:00 or 23:00 UTC: hour grain;
 * in Asia/Kolkata (+05:30): minute grain; a range ending at 11:59:59.001 (an inclusive endDate
 * with a time): raw.
 */
import type { Bucket } from './buckets.js';

export const GRAINS = ['DAY', 'HOUR', 'MINUTE'] as const;
export type Grain = (typeof GRAINS)[number];
export type Source = Grain | 'RAW';

export const GRAIN_MS: Record<Grain, number> = { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 };

export function planSource(range: { from: Date; to: Date }, buckets: readonly Bucket[], available: readonly Grain[]): Source {
  const from = range.from.getTime(),
    to = range.to.getTime();
  const boundaries = [from, to, ...buckets.map((b) => b.start).filter((s) => s > from && s < to)];
  for (const g of GRAINS) {
    if (!available.includes(g)) continue;
    if (boundaries.every((t) => t % GRAIN_MS[g] === 0)) return g;
  }
  return 'RAW';
}

/** Rollup table of a dataset at a grain. */
export const ROLLUPS = {
  plays: { MINUTE: 'play_rollup_minute', HOUR: 'play_rollup_hour', DAY: 'play_rollup_day' },
  /** Ping sums and uptime minute masks per device and hour (006_distinct_rollups.sql) and day (009_day_rollups.sql: the day's minute masks). */
  pings: { HOUR: 'device_rollup_hour', DAY: 'device_rollup_day' },
  events: { HOUR: 'event_rollup_hour' },
  audience: { HOUR: 'audience_rollup_hour', DAY: 'audience_rollup_day' },
  /** Unique visitors of `audience` (same grains): one row per device, file, period and visitor. */
  visitors: { HOUR: 'audience_visitors_hour', DAY: 'audience_visitors_day' },
} as const satisfies Record<string, Partial<Record<Grain, string>>>;

/**
 * Unique visitors per device and whole UTC day, counted after the day ended (009_day_rollups.sql,
 * workers/visitor-days.ts): a row answers only while its latest version is valid; the audience read
 * counts the visitor rows of `visitors.DAY` for every other device and day.
 */
export const VISITOR_COUNTS_DAY = 'audience_visitor_days';

export const grainsOf = (rollups: Partial<Record<Grain, string>>): Grain[] => Object.keys(rollups) as Grain[];

/** A range answered from a rollup of `grain` on [from, to) and from the raw table outside it (epoch ms). */
export interface Split {
  grain: Grain;
  from: number;
  to: number;
}

/**
 * For a range `planSource` must answer raw only because its ends are off every grain ("the last 7
 * days" ending now, an inclusive endDate with a time) while every period start inside it is on one:
 * the coarsest such grain g with at least one whole g-period inside. The rollup answers
 * [ceil_g(from), floor_g(to)); the raw rows before and after it lie inside the first and last answer
 * periods (the first period start inside the range is a multiple of g, so it is at or after
 * ceil_g(from); likewise at the end), so each period's sum of the two parts is exact.
 * Undefined when there is no such grain (then raw).
 */
export function planSplit(range: { from: Date; to: Date }, buckets: readonly Bucket[], available: readonly Grain[]): Split | undefined {
  const from = range.from.getTime(),
    to = range.to.getTime();
  const inner = buckets.map((b) => b.start).filter((s) => s > from && s < to);
  for (const g of GRAINS) {
    if (!available.includes(g)) continue;
    const ms = GRAIN_MS[g];
    if (!inner.every((t) => t % ms === 0)) continue;
    const a = Math.ceil(from / ms) * ms;
    const b = Math.floor(to / ms) * ms;
    if (a < b) return { grain: g, from: a, to: b };
  }
  return undefined;
}
