/**
 * Unique visitors per (account, device, UTC day), counted once the day is over
 * (kit/migrations/analytics/009_day_rollups.sql: audience_visitor_days), so a DAY audience series
 * reads one number per device and day instead of counting the day's visitor rows on every read.
 *
 * A distinct count is not a sum: no view can keep it on insert, so these are computed values with
 * a validity rule, and the audience read (audience.queries.ts) uses a row only when its latest
 * version says valid = 1, counting the visitor rows for every other device and day. Versions are
 * the database clock (`now64(6)`): for a count, read before its statements start (so before they
 * read the visitor rows); for a mark, during its statement, which starts after the insert completed:
 * - countVisitorDays (the ingest's hourly run, beside the compaction of closed months) counts the
 *   days that ended at least SETTLE_MS ago: first the (device, day) pairs marked invalid, then the
 *   pairs of the last `lookbackDays` days that have no count yet.
 * - A visitor row written into a day that has a count makes that count wrong: the view of 009 marks
 *   the (device, day) invalid on every insert of a visitor impression into a day before today, and
 *   markLateVisitorDays marks it again after the ingest's insert completed. The second mark is what
 *   makes this exact while a count runs concurrently with a late insert: a count versioned at or after
 *   the mark read its clock after the insert completed, so its statements saw the rows; a count
 *   versioned before the mark loses to it. The rollup repair (rollup-repair.ts) marks the days it
 *   completed in the same way, after completing them.
 * Clocks: the ingest marks the days that ended by its own clock, the count waits SETTLE_MS past a
 * day's end by its clock, so the two may be up to SETTLE_MS apart.
 */
import type { AnalyticsStore, SqlParams } from '@pylon/kit';
import { ROLLUPS, VISITOR_COUNTS_DAY } from '../domain/rollup-plan.js';
import { LOOKUP_VALUES } from './exactly-once.js';

const DAY_MS = 86_400_000;
/** A day is counted this long after it ended (late uploads settle; the clock margin above). */
export const SETTLE_MS = 3_600_000;
/** How far back a run looks for days without a count (an ingest down this long leaves older days to the visitor rows). */
export const LOOKBACK_DAYS = 8;

const PAIRS = `SELECT account_id, device_id, period FROM ${VISITOR_COUNTS_DAY}`;

/** Writes a valid count for each (account, device, day) that `pairs` selects, from the visitor rows `rows` selects. */
const countSql = (pairs: string, rows: string) => `INSERT INTO ${VISITOR_COUNTS_DAY} (account_id, device_id, period, visitors, valid, version)
SELECT account_id, device_id, period, ifNull(c.visitors, 0), 1, toDateTime64({version:String}, 6, 'UTC')
FROM (${pairs}) AS s
LEFT JOIN (
  SELECT account_id, device_id, period, uniqExact(visitor) AS visitors FROM ${ROLLUPS.visitors.DAY}
  WHERE ${rows}
  GROUP BY account_id, device_id, period
) AS c USING (account_id, device_id, period)`;

/**
 * Counts the finished days (ended by `now` - SETTLE_MS) marked invalid, then those of the `lookbackDays`
 * before `now` without a count.
 */
export async function countVisitorDays(store: Pick<AnalyticsStore, 'exec' | 'query'>, o: { now?: Date; lookbackDays?: number } = {}): Promise<void> {
  const now = (o.now ?? new Date()).getTime();
  // Day starts strictly before `until` have ended SETTLE_MS ago or more.
  const until = Math.floor((now - SETTLE_MS - DAY_MS) / DAY_MS) * DAY_MS + DAY_MS;
  const from = until - (o.lookbackDays ?? LOOKBACK_DAYS) * DAY_MS;
  // The counts' version: the database clock read before the statements below start, so before they
  // take their snapshot of the visitor rows (a statement's own now64() may be evaluated after it).
  const [clock] = await store.query<{ v: string }>("SELECT toString(now64(6, 'UTC')) AS v");
  if (!clock) throw new Error('the analytics store did not answer its clock');
  const params: SqlParams = { until: until / 1000, from: from / 1000, version: clock.v };
  const finished = "period < toDateTime({until:UInt32}, 'UTC')";
  const window = `period >= toDateTime({from:UInt32}, 'UTC') AND ${finished}`;
  // 1. Invalid pairs of finished days, any age (a pair whose visitor rows are gone counts 0).
  const invalid = `${PAIRS} WHERE ${finished} GROUP BY account_id, device_id, period HAVING argMax(valid, version) = 0`;
  await store.exec(countSql(invalid, `(account_id, device_id, period) IN (${invalid})`), params);
  // 2. Pairs of the lookback window with impressions (the day rollup) and no count at all (0 when
  // none of their impressions had a visitor).
  const uncounted = `(account_id, device_id, period) NOT IN (${PAIRS} WHERE ${window})`;
  await store.exec(
    countSql(
      `SELECT account_id, device_id, period FROM ${ROLLUPS.audience.DAY} WHERE ${window} AND ${uncounted} GROUP BY account_id, device_id, period`,
      `${window} AND ${uncounted}`,
    ),
    params,
  );
}

/**
 * Marks invalid the day counts of the devices of `rows` (impressions just inserted or found stored)
 * for the UTC days with a visitor impression among them that ended by `now`. Call it after the
 * insert completed; today's rows mark nothing.
 */
export async function markLateVisitorDays(
  store: Pick<AnalyticsStore, 'exec'>,
  rows: readonly Record<string, unknown>[],
  now: Date = new Date(),
): Promise<number> {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const pairs = new Map<string, [string, string, number]>();
  const todayIso = new Date(today).toISOString();
  for (const r of rows) {
    if (!r.visitor_id) continue;
    const stamp = String(r.timestamp);
    // Live traffic without parsing: an ISO stamp in UTC (24 characters, ...Z) sorts as its instant.
    if (stamp.length === 24 && stamp.endsWith('Z') && stamp >= todayIso) continue;
    const t = Date.parse(stamp);
    if (!Number.isFinite(t) || t >= today) continue;
    const day = Math.floor(t / DAY_MS) * DAY_MS;
    const a = String(r.account_id ?? ''),
      d = String(r.device_id ?? '');
    pairs.set(`${a}\u0001${d}\u0001${day}`, [a, d, day / 1000]);
  }
  const all = [...pairs.values()];
  // Slices keep the parameters small (see LOOKUP_VALUES).
  for (let i = 0; i < all.length; i += LOOKUP_VALUES) {
    const some = all.slice(i, i + LOOKUP_VALUES);
    await store.exec(
      `INSERT INTO ${VISITOR_COUNTS_DAY} (account_id, device_id, period, visitors, valid, version)
SELECT tupleElement(t, 1), tupleElement(t, 2), toDateTime(tupleElement(t, 3), 'UTC'), 0, 0, now64(6, 'UTC')
FROM (SELECT arrayJoin(arrayZip({a:Array(String)}, {d:Array(String)}, {p:Array(UInt32)})) AS t)`,
      { a: some.map((p) => p[0]), d: some.map((p) => p[1]), p: some.map((p) => p[2]) },
    );
  }
  return all.length;
}
