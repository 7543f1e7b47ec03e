/**
 * Audience reads from the impressions table: the detections themselves, demographics per device
 * and period (the heat map: features/heat-map). Sensors report gender and age range in their own spellings
 * ("female", "F", "25-34"); AUDIENCE_SPELLINGS maps them onto the interface's enums.
 */
import type { AnalyticsStore } from '@pylon/kit';
import type { AnalyticsQuery, SeriesQuery } from '../../domain/analytics-query.js';
import { grainsOf, planSource, ROLLUPS, VISITOR_COUNTS_DAY, type Source } from '../../domain/rollup-plan.js';
import { deviceSeries } from '../../domain/series.js';
import type { AnalyticsAgeRange, AnalyticsGender, AudienceMetric, Impression } from '../../shared/resolvers.generated.js';
import type { ListArgs } from '../../domain/list-filter.js';
import { isoOf, isoSql, limitClause, periodExpr, scope } from '../../shared/scope.sql.js';
import { namedColumns, orderSql, TELEMETRY_FIELDS, WhereBuilder, type ColumnMap } from '../../shared/where.sql.js';

const GENDERS: Record<string, AnalyticsGender> = { male: 'MALE', m: 'MALE', female: 'FEMALE', f: 'FEMALE' };
const AGES: Record<AnalyticsAgeRange, string[]> = {
  UNDER18: ['under18', 'under 18', '<18', '0-17', 'age_under18'],
  AGE18TO24: ['age18to24', '18-24', '18to24'],
  AGE25TO34: ['age25to34', '25-34', '25to34'],
  AGE35TO44: ['age35to44', '35-44', '35to44'],
  AGE45TO54: ['age45to54', '45-54', '45to54'],
  AGE55TO64: ['age55to64', '55-64', '55to64'],
  AGE65TO74: ['age65to74', '65-74', '65to74'],
  AGEOVER74: ['ageover74', 'over74', '75+', '>74', 'over 74'],
};
const AGE_FROM = Object.values(AGES).flat();
const AGE_TO = Object.entries(AGES).flatMap(([k, v]) => v.map(() => k));
/** Bound parameters used by the two expressions below. */
const SPELLING_PARAMS = { gFrom: Object.keys(GENDERS), gTo: Object.values(GENDERS), aFrom: AGE_FROM, aTo: AGE_TO };
const GENDER_SQL = "transform(lower(trim(gender)), {gFrom:Array(String)}, {gTo:Array(String)}, 'UNKNOWN')";
const AGE_SQL = "transform(lower(trim(age_range)), {aFrom:Array(String)}, {aTo:Array(String)}, '')";
const IMPRESSION_COLUMNS = { device: 'device_id', file: 'file_id' };

interface ImpressionRow {
  id: string;
  ts: string;
  device_id: string;
  file_id: string;
  sensor: string;
  dwell_time: number;
  g: AnalyticsGender;
  a: string;
  visitor_id: string;
  latitude: number | null;
  longitude: number | null;
}

/** where / order fields of impressions (gender and ageRange as the interface's enums, through the spelling maps). */
const IMPRESSION_FIELDS: ColumnMap = {
  ...TELEMETRY_FIELDS,
  ...namedColumns('string', ['fileId', 'sensor', 'visitorId']),
  ...namedColumns('number', ['dwellTime', 'latitude', 'longitude']),
  gender: { column: GENDER_SQL, kind: 'string' },
  ageRange: { column: AGE_SQL, kind: 'string' },
};

export async function selectImpressions(
  store: AnalyticsStore,
  q: AnalyticsQuery,
  only: { genders: string[]; ageRanges: string[] },
  list: ListArgs = {},
): Promise<Impression[]> {
  const { where, params } = scope(q, IMPRESSION_COLUMNS);
  const filter = new WhereBuilder(IMPRESSION_FIELDS);
  const extra = [
    only.genders.length ? `has({genders:Array(String)}, ${GENDER_SQL})` : '',
    only.ageRanges.length ? `has({ages:Array(String)}, ${AGE_SQL})` : '',
    filter.where(list.where),
  ].filter(Boolean);
  const rows = await store.query<ImpressionRow>(
    `SELECT id, ${isoSql('timestamp')} AS ts, device_id, file_id, sensor, dwell_time, ${GENDER_SQL} AS g, ${AGE_SQL} AS a, visitor_id, latitude, longitude
FROM impressions FINAL
WHERE ${[where, ...extra].join('\n  AND ')}
ORDER BY ${orderSql(list.order, IMPRESSION_FIELDS, 'timestamp, device_id, id')}
${limitClause(q.limit)}`,
    { ...params, ...SPELLING_PARAMS, genders: only.genders, ages: only.ageRanges, ...filter.params },
  );
  return rows.map((r) => ({
    id: r.id,
    timestamp: r.ts,
    deviceId: r.device_id,
    fileId: r.file_id || null,
    sensor: r.sensor || null,
    dwellTime: Number(r.dwell_time),
    gender: r.g,
    ageRange: (r.a || null) as AnalyticsAgeRange | null,
    visitorId: r.visitor_id || null,
    latitude: r.latitude,
    longitude: r.longitude,
  }));
}

const AGE_FIELDS: Record<AnalyticsAgeRange, keyof AudienceMetric> = {
  UNDER18: 'ageUnder18',
  AGE18TO24: 'age18To24',
  AGE25TO34: 'age25To34',
  AGE35TO44: 'age35To44',
  AGE45TO54: 'age45To54',
  AGE55TO64: 'age55To64',
  AGE65TO74: 'age65To74',
  AGEOVER74: 'ageOver74',
};

type AudienceRow = { device_id: string; p: number; total: number; visitors: number; counted?: number; dwell: number; male: number; female: number } & Record<
  string,
  number
>;

const AGE_KEYS = Object.keys(AGE_FIELDS);
const DAY_MS = 86_400_000;
/** The sums' columns (impressions, dwell, male, female, ages) as zeros, in a visitor branch of the UNION ALL below. */
const NO_SUMS = ['toUInt64(0)', 'toFloat64(0)', 'toUInt64(0)', 'toUInt64(0)', ...AGE_KEYS.map(() => 'toUInt64(0)')].join(', ');

/**
 * Demographics per device and period; every period present for each device with impressions.
 * `source`: the raw impressions or an audience rollup (default: what the planner chooses). The
 * rollups keep the sensors' spellings, so both read through the same GENDER_SQL / AGE_SQL.
 * A DAY series on the day rollup without a file filter takes the unique visitors of each device and
 * day from its count (VISITOR_COUNTS_DAY) where one is valid, and counts the visitor rows of today
 * (by `now`) and of the other days (`dayCounts: false`: always the visitor rows). `devices`: ids of
 * the device filter checked to be the caller's, each with its series (zeros without impressions); a
 * promise is awaited after the query, so the check runs beside it.
 */
export async function selectAudienceMetrics(
  store: AnalyticsStore,
  q: SeriesQuery,
  includeDwellTime: boolean,
  source: Source = planSource(q.range, q.buckets, grainsOf(ROLLUPS.audience)),
  o: { dayCounts?: boolean; now?: Date; devices?: readonly string[] | Promise<readonly string[]> } = {},
): Promise<AudienceMetric[]> {
  const grain = source === 'HOUR' || source === 'DAY' ? source : null;
  const { where, params } = scope(q, grain ? { ...IMPRESSION_COLUMNS, time: 'period' } : IMPRESSION_COLUMNS);
  const bound = { ...params, ...SPELLING_PARAMS, tz: q.timeZone };
  let rows: AudienceRow[];
  if (!grain) {
    rows = await store.query<AudienceRow>(
      `SELECT device_id, ${periodExpr(q.interval, 'timestamp')} AS p, count() AS total,
  uniqExactIf(visitor_id, visitor_id != '') AS visitors, avg(dwell_time) AS dwell,
  countIf(${GENDER_SQL} = 'MALE') AS male, countIf(${GENDER_SQL} = 'FEMALE') AS female, ${AGE_KEYS.map((k) => `countIf(${AGE_SQL} = '${k}') AS ${k}`).join(', ')}
FROM impressions FINAL
WHERE ${where}
GROUP BY device_id, p`,
      bound,
    );
  } else {
    // A DAY period on the day grain is one UTC day (its boundaries are UTC midnights: 24 h apart).
    const dayCounts = (o.dayCounts ?? true) && grain === 'DAY' && q.interval === 'DAY' && q.fileIds.length === 0;
    const p = periodExpr(q.interval, 'period');
    // Today (UTC, this clock) has no count yet: its visitor rows are counted in the same select.
    const today = Math.floor((o.now ?? new Date()).getTime() / DAY_MS) * DAY_MS;
    const open = dayCounts && q.range.to.getTime() > today;
    // Unique visitors: the visitor rows of the same grain (006_distinct_rollups.sql), which the same
    // scope (account, range, device, file) selects, or the valid day counts (009_day_rollups.sql)
    // before today and the visitor rows from today on.
    const visitorPart = dayCounts
      ? `SELECT device_id, ${p} AS p, ${NO_SUMS}, v AS visitor_count, toUInt8(1) AS counted
  FROM (
    SELECT device_id, period, argMax(visitors, version) AS v, argMax(valid, version) AS ok
    FROM ${VISITOR_COUNTS_DAY}
    WHERE ${where} AND period < toDateTime({today:UInt32}, 'UTC')
    GROUP BY device_id, period
  )
  WHERE ok = 1${
    open
      ? `
  UNION ALL
  SELECT device_id, ${p} AS p, ${NO_SUMS}, toUInt64(uniqExact(visitor)), toUInt8(1)
  FROM ${ROLLUPS.visitors.DAY}
  WHERE ${where} AND period >= toDateTime({today:UInt32}, 'UTC')
  GROUP BY device_id, p`
      : ''
  }`
      : `SELECT device_id, ${p} AS p, ${NO_SUMS}, toUInt64(uniqExact(visitor)), toUInt8(0)
  FROM ${ROLLUPS.visitors[grain]}
  WHERE ${where}
  GROUP BY device_id, p`;
    // Sums from the audience rollup and the visitors in one pass (UNION ALL), then summed per period.
    rows = await store.query<AudienceRow>(
      `SELECT device_id, p, sum(n) AS total, sum(visitor_count) AS visitors, max(counted) AS counted, if(total = 0, 0, sum(dwell_total) / total) AS dwell,
  sum(male_n) AS male, sum(female_n) AS female, ${AGE_KEYS.map((k) => `sum(${k}_n) AS ${k}`).join(', ')}
FROM (
  SELECT device_id, ${p} AS p, sum(impressions) AS n, toFloat64(sum(dwell_sum)) AS dwell_total,
    sumIf(impressions, ${GENDER_SQL} = 'MALE') AS male_n, sumIf(impressions, ${GENDER_SQL} = 'FEMALE') AS female_n,
    ${AGE_KEYS.map((k) => `sumIf(impressions, ${AGE_SQL} = '${k}') AS ${k}_n`).join(', ')}, toUInt64(0) AS visitor_count, toUInt8(0) AS counted
  FROM ${ROLLUPS.audience[grain]}
  WHERE ${where}
  GROUP BY device_id, p
  UNION ALL
  ${visitorPart}
)
GROUP BY device_id, p`,
      { ...bound, today: today / 1000 },
    );
    if (dayCounts) await countUncountedDays(store, q.accountId, rows, today);
  }
  const series = deviceSeries(
    q.buckets,
    rows,
    await o.devices,
    (deviceId, b, r): AudienceMetric => {
      const n = (v: number | undefined) => (r ? Number(v) : 0);
      const m: AudienceMetric = {
        deviceId,
        periodStart: isoOf(b.start),
        periodEnd: isoOf(b.end),
        totalImpressions: n(r?.total),
        uniqueVisitors: n(r?.visitors),
        avgDwellTime: includeDwellTime ? n(r?.dwell) : null,
        maleCount: n(r?.male),
        femaleCount: n(r?.female),
        unknownGenderCount: n(r?.total) - n(r?.male) - n(r?.female),
        ageUnder18: 0,
        age18To24: 0,
        age25To34: 0,
        age35To44: 0,
        age45To54: 0,
        age55To64: 0,
        age65To74: 0,
        ageOver74: 0,
      };
      for (const [k, field] of Object.entries(AGE_FIELDS)) (m as Record<string, unknown>)[field] = n(r?.[k]);
      return m;
    },
    q.limit,
  );
  return series;
}

/**
 * The unique visitors of the (device, day) pairs of `rows` before `today` (epoch ms) with impressions
 * but no valid day count (a day not counted yet or invalidated by a late impression), from the
 * visitor rows of those pairs only; written into `rows`. Today's were counted with the rest.
 */
async function countUncountedDays(store: AnalyticsStore, accountId: string, rows: AudienceRow[], today: number): Promise<void> {
  const open = rows.filter((r) => Number(r.total) > 0 && !Number(r.counted) && Number(r.p) * 1000 < today);
  if (open.length === 0) return;
  const key = (device: string, p: number) => `${device}\u0001${p}`;
  const days = [...new Set(open.map((r) => Number(r.p)))];
  const counts = await store.query<{ device_id: string; p: number; v: number }>(
    `SELECT device_id, toUnixTimestamp(period) AS p, uniqExact(visitor) AS v
FROM ${ROLLUPS.visitors.DAY}
WHERE account_id = {acc:String} AND device_id IN {devices:Array(String)}
  AND period >= toDateTime({first:UInt32}, 'UTC') AND period <= toDateTime({last:UInt32}, 'UTC') AND toUnixTimestamp(period) IN {days:Array(UInt32)}
  AND concat(device_id, char(1), toString(toUnixTimestamp(period))) IN {pairs:Array(String)}
GROUP BY device_id, period`,
    {
      acc: accountId,
      devices: [...new Set(open.map((r) => r.device_id))],
      first: Math.min(...days),
      last: Math.max(...days),
      days,
      pairs: open.map((r) => key(r.device_id, Number(r.p))),
    },
  );
  const found = new Map(counts.map((c) => [key(c.device_id, Number(c.p)), Number(c.v)]));
  for (const r of open) r.visitors = found.get(key(r.device_id, Number(r.p))) ?? 0;
}
