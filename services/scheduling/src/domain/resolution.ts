/**
 * What a screen shows at a moment, and why: the resolution engine. Pure (no I/O): nowPlaying,
 * deviceTimeline and the player manifest all call it with schedules and a time zone already read.
 *
 * Rules, in order:
 *   1. An *occurrence* of a schedule belongs to the local day it starts on. It exists on day D when
 *      D lies within [startDate, endDate] (the dates' calendar days, inclusive, in the device's
 *      zone) and D's weekday is enabled. It runs from startTime on D to endTime on D, or to endTime
 *      on D + 1 when endTime is not after startTime (an overnight window); no startTime means 00:00,
 *      no endTime means 24:00. Wall times become instants by zone-clock's DST rule.
 *   2. A schedule whose content is gone (its playlist or template was deleted) never wins.
 *   3. Among the schedules playing, the highest priority wins; ties go to the most recently
 *      modified, then to the smallest id (so the answer is deterministic).
 */
import { DAY_MS, dayAt, instantOfWall, weekdayOf } from './zone-clock.js';

/** A schedule as the engine sees it. */
export interface Plan {
  id: string;
  /** Higher wins (SCHEDULE_PRIORITIES rank). */
  priority: number;
  /** Last modification, ms since the epoch (tie-break). */
  modifiedAt: number;
  /** Local calendar days, inclusive; null: unbounded. */
  startDay: number | null;
  endDay: number | null;
  /** Seconds after local midnight: start 0..86399, end 1..86400; end <= start is overnight. */
  startSecond: number;
  endSecond: number;
  /** Index 0 = Monday ... 6 = Sunday. */
  weekdays: readonly boolean[];
  /** False when its playlist or template no longer exists. */
  hasContent: boolean;
}

export type Verdict = 'PLAYING' | 'OUTRANKED' | 'CONTENT_MISSING' | 'NOT_STARTED' | 'ENDED' | 'WRONG_WEEKDAY' | 'OUTSIDE_HOURS';

export interface Consideration<P extends Plan = Plan> {
  plan: P;
  verdict: Verdict;
  /** The occurrence containing the instant, when there is one. */
  window: { from: number; to: number } | null;
}

export interface Resolution<P extends Plan = Plan> {
  winner: P | null;
  /** Every schedule, the winner first, then the others in descending rank. */
  considered: Consideration<P>[];
  /** The first instant after `at` at which the winner differs; null: none within the horizon. */
  nextChange: number | null;
}

export interface Segment<P extends Plan = Plan> {
  from: number;
  to: number;
  winner: P | null;
}

/** How far ahead nextChange looks past the date-range events it jumps to. */
const HORIZON_DAYS = 8;
/** At most this far ahead for nextChange (beyond: null). */
const MAX_LOOKAHEAD_DAYS = 366 * 2;

const rankOrder = (a: Plan, b: Plan) => b.priority - a.priority || b.modifiedAt - a.modifiedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Whether the schedule has an occurrence on local day `day` (date range and weekday). */
const occursOn = (p: Plan, day: number) =>
  (p.startDay === null || day >= p.startDay) && (p.endDay === null || day <= p.endDay) && p.weekdays[weekdayOf(day)] === true;

/** The occurrence of `p` starting on `day` as instants (it may be empty on a spring-forward night). */
export function occurrence(p: Plan, zone: string, day: number): { from: number; to: number } {
  const from = instantOfWall(zone, day * DAY_MS + p.startSecond * 1000);
  const endDay = p.endSecond > p.startSecond ? day : day + 1;
  return { from, to: instantOfWall(zone, endDay * DAY_MS + p.endSecond * 1000) };
}

/** The occurrence of `p` containing `at`, if any (it started today or, overnight, yesterday). */
function windowAt(p: Plan, zone: string, at: number, today: number): { from: number; to: number } | null {
  for (const day of [today, today - 1]) {
    if (!occursOn(p, day)) continue;
    const w = occurrence(p, zone, day);
    if (w.from <= at && at < w.to) return w;
  }
  return null;
}

function verdictOf(p: Plan, zone: string, at: number, today: number): Consideration['verdict'] | { window: { from: number; to: number } } {
  const w = windowAt(p, zone, at, today);
  if (w) return { window: w };
  // Not playing: the most telling reason. An overnight window of yesterday counts as within range.
  if (p.endDay !== null && today > p.endDay + 1) return 'ENDED';
  if (p.startDay !== null && today < p.startDay) return 'NOT_STARTED';
  if (p.endDay !== null && today > p.endDay) return 'ENDED';
  return p.weekdays[weekdayOf(today)] ? 'OUTSIDE_HOURS' : 'WRONG_WEEKDAY';
}

/** The winner among `plans` at `at`, without explanations (the hot path of timelines). */
export function winnerAt<P extends Plan>(plans: readonly P[], zone: string, at: number): P | null {
  const today = dayAt(zone, at);
  let best: P | null = null;
  for (const p of plans) {
    if (!p.hasContent || (best && rankOrder(p, best) >= 0)) continue;
    if (windowAt(p, zone, at, today)) best = p;
  }
  return best;
}

/** Every occurrence boundary of `plans` in [from, to). */
function boundaries(plans: readonly Plan[], zone: string, from: number, to: number): number[] {
  const first = dayAt(zone, from) - 1;
  const last = dayAt(zone, to);
  const out = new Set<number>();
  for (const p of plans) {
    for (let day = Math.max(first, p.startDay ?? first); day <= Math.min(last, p.endDay ?? last); day++) {
      if (!occursOn(p, day)) continue;
      const w = occurrence(p, zone, day);
      if (w.from > from && w.from < to) out.add(w.from);
      if (w.to > from && w.to < to) out.add(w.to);
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** The winners over [from, to): consecutive stretches with the same winner (null: nothing plays). */
export function timeline<P extends Plan>(plans: readonly P[], zone: string, from: number, to: number): Segment<P>[] {
  const segments: Segment<P>[] = [];
  let start = from;
  let current = winnerAt(plans, zone, from);
  for (const b of boundaries(plans, zone, from, to)) {
    const next = winnerAt(plans, zone, b);
    if (next === current) continue;
    segments.push({ from: start, to: b, winner: current });
    start = b;
    current = next;
  }
  segments.push({ from: start, to, winner: current });
  return segments;
}

/**
 * The first instant after `at` when the winner is no longer `current`. Looks HORIZON_DAYS ahead,
 * then around each later date-range event (a schedule beginning or ending), since between those
 * the week repeats itself.
 */
function nextChangeAfter<P extends Plan>(plans: readonly P[], zone: string, at: number, current: P | null): number | null {
  const limit = at + MAX_LOOKAHEAD_DAYS * DAY_MS;
  const spans: Array<[number, number]> = [[at, at + HORIZON_DAYS * DAY_MS]];
  const today = dayAt(zone, at);
  const events = new Set<number>();
  for (const p of plans) for (const d of [p.startDay, p.endDay === null ? null : p.endDay + 1]) if (d !== null && d > today + HORIZON_DAYS - 1) events.add(d);
  for (const d of [...events].sort((a, b) => a - b)) {
    const from = instantOfWall(zone, (d - 1) * DAY_MS);
    if (from >= limit) break;
    spans.push([from, from + HORIZON_DAYS * DAY_MS]);
  }
  let covered = at;
  for (const [from, to] of spans) {
    if (to <= covered) continue;
    for (const b of boundaries(plans, zone, Math.max(from, covered), Math.min(to, limit))) {
      if (b <= at) continue;
      if (winnerAt(plans, zone, b) !== current) return b;
    }
    covered = to;
  }
  return null;
}

/** The winner at `at`, every schedule's verdict, and when the answer next changes. */
export function resolve<P extends Plan>(plans: readonly P[], zone: string, at: number): Resolution<P> {
  const today = dayAt(zone, at);
  const ranked = [...plans].sort(rankOrder);
  let winner: P | null = null;
  const considered: Consideration<P>[] = ranked.map((plan) => {
    const v = verdictOf(plan, zone, at, today);
    if (typeof v === 'string') return { plan, verdict: v, window: null };
    if (!plan.hasContent) return { plan, verdict: 'CONTENT_MISSING', window: v.window };
    if (winner) return { plan, verdict: 'OUTRANKED', window: v.window };
    winner = plan;
    return { plan, verdict: 'PLAYING', window: v.window };
  });
  considered.sort((a, b) => (a.plan === winner ? -1 : b.plan === winner ? 1 : 0));
  return { winner, considered, nextChange: nextChangeAfter(plans, zone, at, winner) };
}

export interface Outlook<P extends Plan = Plan> {
  winner: P | null;
  nextChange: number | null;
  /** Who wins from nextChange on (null: nothing scheduled then, or no change). */
  next: P | null;
}

const MAX_OUTLOOKS = 5000;
/** A day: how long an answer without a next change is reused before the lookahead is redone. */
const NO_CHANGE_REUSE_MS = DAY_MS;
const outlooks = new Map<string, { from: number; until: number; winner: string | null; nextChange: number | null; next: string | null }>();

/** Everything the engine reads of the plans, so equal keys mean equal answers. */
const outlookKey = (plans: readonly Plan[], zone: string) =>
  `${zone}|${plans
    .map(
      (p) =>
        `${p.id}:${p.priority}:${p.modifiedAt}:${p.startDay}:${p.endDay}:${p.startSecond}:${p.endSecond}:${p.weekdays.map(Number).join('')}:${+p.hasContent}`,
    )
    .join(',')}`;

/**
 * How long "no change" found at `at` stays the exact answer. The lookahead moves with the instant,
 * so a change just beyond it from `at` comes into view from a later instant. A change seen from
 * `at + NO_CHANGE_REUSE_MS` would be seen from every instant between (the first span only grows),
 * so when none is seen from there the answer holds for the whole reuse; when one is, not reused.
 */
function noChangeUntil(plans: readonly Plan[], zone: string, at: number): number {
  const end = at + NO_CHANGE_REUSE_MS - 1;
  return nextChangeAfter(plans, zone, end, winnerAt(plans, zone, end)) === null ? end + 1 : at + 1;
}

/**
 * What the player manifest asks (the winner now, when that changes, who wins then), memoised: the
 * winner is constant on [at, nextChange) and nextChange is the same instant from anywhere in it, so
 * an answer computed at `at` is exact for every later instant before nextChange, as long as the
 * plans and zone are the same (the key holds every field the engine reads). Bounded, like
 * zone-clock's memo; only the answers of the pure engine are kept.
 */
export function outlook<P extends Plan>(plans: readonly P[], zone: string, at: number): Outlook<P> {
  const key = outlookKey(plans, zone);
  const byId = (id: string | null) => (id === null ? null : (plans.find((p) => p.id === id) ?? null));
  const hit = outlooks.get(key);
  if (hit && hit.from <= at && at < hit.until) return { winner: byId(hit.winner), nextChange: hit.nextChange, next: byId(hit.next) };
  const r = resolve(plans, zone, at);
  const next = r.nextChange === null ? null : winnerAt(plans, zone, r.nextChange);
  if (outlooks.size >= MAX_OUTLOOKS) outlooks.clear();
  outlooks.set(key, {
    from: at,
    until: r.nextChange ?? noChangeUntil(plans, zone, at),
    winner: r.winner?.id ?? null,
    nextChange: r.nextChange,
    next: next?.id ?? null,
  });
  return { winner: r.winner, nextChange: r.nextChange, next };
}
