/**
 * Scenario 9 (analytics): playStatsByTime, deviceMetrics and audienceMetrics over generated
 * telemetry, each three ways in one run: POST /graphql (from a client in another process, as a BI
 * tool calls it) reading the raw tables, the same reading the rollups (the planner's choice for a
 * date-only range), and the same SQL run directly on the store (the select functions the resolvers
 * call, without GraphQL or HTTP: the ceiling). Data is generated inside ClickHouse with numbers(),
 * so the insert path is the engine's own (materialized views included).
 */
import type { AnalyticsStore } from '@pylon/kit';
import { selectAudienceMetrics } from '@pylon/analytics/features/audience/audience.queries';
import { selectDeviceMetrics } from '@pylon/analytics/features/device-metrics/device-metrics.queries';
import { selectPlayStatsByTime } from '@pylon/analytics/features/play-stats/play-stats.queries';
import { compactClosedPartitions } from '@pylon/analytics/workers/compaction';
import { countVisitorDays } from '@pylon/analytics/workers/visitor-days';
import { toSeriesQuery } from '@pylon/analytics/shared/analytics-args';
import { POLICIES } from '@pylon/kit';
import { DEMO_ACCOUNT_ID } from '@pylon/launcher/demo/seed-demo';
import { BENCH_KEY } from './bench-app.js';
import { childHttpClient } from './child-http-client.js';

export interface AnalyticsSizes {
  plays: number;
  pings: number;
  impressions: number;
}

export interface AnalyticsRow {
  query: string;
  path: string;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * The materialized views the generator detaches in backfill mode, and the rollups it then fills
 * from the raw tables: the ones the scenario reads (day rollups for plays and audience with the
 * day's visitor rows, the hour and day device rollups for pings with their uptime masks; 003's
 * ping_rollup_hour, no longer read, stays empty). The minute/hour play and hour audience rollups stay
 * empty in that mode. Either way the days' unique visitors are then counted (009's
 * audience_visitor_days) as the ingest's periodic run does once the days are over.
 */
const VIEWS = [
  'play_rollup_minute_mv',
  'play_rollup_hour_mv',
  'play_rollup_day_mv',
  'ping_rollup_hour_mv',
  'event_rollup_hour_mv',
  'audience_rollup_hour_mv',
  'audience_rollup_day_mv',
  'device_rollup_hour_mv',
  'audience_visitors_hour_mv',
  'audience_visitors_day_mv',
  'device_rollup_day_mv',
  'audience_visitor_days_late_mv',
];
const AT = "toDateTime(timestamp, 'UTC')";
/** 009's day masks of device_rollup_day, one per four hours. */
const DAY_MASKS = Array.from(
  { length: 6 },
  (_, k) => `groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(${AT}) % 4 * 60 + toMinute(${AT})), intDiv(toHour(${AT}), 4) = ${k})`,
).join(', ');
const BACKFILLS = [
  `INSERT INTO play_rollup_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count(), sum(duration), argMaxState(file_name, (timestamp, file_name)) FROM play_logs WHERE account_id = {acc:String} GROUP BY account_id, device_id, file_id, period`,
  `INSERT INTO audience_rollup_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  lower(trim(gender)) AS g, lower(trim(age_range)) AS a, count(), sum(dwell_time), uniqExactIfState(visitor_id, visitor_id != '')
FROM impressions WHERE account_id = {acc:String} GROUP BY account_id, device_id, file_id, period, g, a`,
  `INSERT INTO device_rollup_hour SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90), groupBitOr(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))))
FROM ping_logs WHERE account_id = {acc:String} GROUP BY account_id, device_id, period`,
  `INSERT INTO device_rollup_day SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90), ${DAY_MASKS}
FROM ping_logs WHERE account_id = {acc:String} GROUP BY account_id, device_id, period`,
  `INSERT INTO audience_visitors_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE account_id = {acc:String} AND visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor`,
];

/**
 * 90 days of telemetry from 2026-01-01 for 500 devices and 200 files, spread evenly. Normally the
 * materialized views feed the rollups as the rows go in (the ingest's path). With `backfill` (large
 * sizes: the minute rollup alone is as large as the raw plays at 100M), the views are detached
 * while the raw rows go in and the rollups the scenario reads are filled afterwards by one
 * INSERT ... SELECT ... GROUP BY each (the migrations' backfill statements), which gives the same
 * rollup rows.
 */
export async function generateTelemetry(
  store: AnalyticsStore,
  accountId: string,
  sizes: AnalyticsSizes,
  opts: { backfill?: boolean; log?: (line: string) => void } = {},
): Promise<number> {
  const t0 = Date.now();
  const log = opts.log ?? (() => undefined);
  if (opts.backfill) for (const v of VIEWS) await store.exec(`DETACH TABLE ${v}`);
  const SPAN_MS = 90 * 86_400_000;
  const step = (n: number) => Math.max(1, Math.floor(SPAN_MS / Math.max(1, n)));
  const base = "toDateTime64('2026-01-01 00:00:00', 3, 'UTC')";
  await store.exec(
    `INSERT INTO play_logs (id, account_id, device_id, file_id, file_name, timestamp, duration, type, playlist_id, schedule_id)
SELECT concat('bp', toString(number)), {acc:String}, concat('d', toString(number % 500)), concat('f', toString(number % 200)),
  concat('File ', toString(number % 200), '.mp4'), ${base} + toIntervalMillisecond(number * ${step(sizes.plays)}), (number % 60) + 1, 'VIDEO', '', ''
FROM numbers(${sizes.plays})`,
    { acc: accountId },
  );
  await store.exec(
    `INSERT INTO ping_logs (id, account_id, device_id, timestamp, cpu_usage, memory_usage, disk_usage, player_version, ip_address, external_ip_address)
SELECT concat('bg', toString(number)), {acc:String}, concat('d', toString(number % 500)),
  ${base} + toIntervalMillisecond(number * ${step(sizes.pings)}), number % 97, (number * 7) % 89, 50, '4.2', '10.0.0.1', ''
FROM numbers(${sizes.pings})`,
    { acc: accountId },
  );
  await store.exec(
    `INSERT INTO impressions (id, account_id, device_id, file_id, timestamp, sensor, dwell_time, gender, age_range, visitor_id, latitude, longitude)
SELECT concat('bi', toString(number)), {acc:String}, concat('d', toString(number % 500)), concat('f', toString(number % 200)),
  ${base} + toIntervalMillisecond(number * ${step(sizes.impressions)}), 'face', number % 30, ['male', 'female', ''][number % 3 + 1],
  ['18-24', '25-34', '35-44', '45-54', '75+'][number % 5 + 1], concat('v', toString(number % 100000)), NULL, NULL
FROM numbers(${sizes.impressions})`,
    { acc: accountId },
  );
  log(`raw rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (opts.backfill) {
    for (const v of VIEWS) await store.exec(`ATTACH TABLE ${v}`);
    for (const sql of BACKFILLS) {
      const t = Date.now();
      await store.exec(sql, { acc: accountId });
      log(`${/INTO (\w+)/.exec(sql)![1]} filled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  const t = Date.now();
  // The 90 days are over (they end 2026-04-01): every (device, day) counted.
  await countVisitorDays(store, { now: new Date('2026-04-02T00:00:00Z'), lookbackDays: 100 });
  log(`audience_visitor_days counted in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return Date.now() - t0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

const stats = (xs: number[]) => ({ p50: pct(xs, 50), p95: pct(xs, 95), p99: pct(xs, 99) });

/** Wall times of `iterations` sequential calls, ms. */
export async function times(iterations: number, f: () => Promise<unknown>): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  return xs;
}

async function timed(iterations: number, f: () => Promise<unknown>, warmup = 1): Promise<{ p50: number; p95: number; p99: number }> {
  await times(warmup, f);
  return stats(await times(iterations, f));
}

/** Rounds in which the paths take turns: `iterations` timed calls of each in all (5 rounds, at least 1 call a round), after `warmup` each. Closes them. */
async function interleaved(paths: { run(n: number): Promise<number[]>; close(): unknown }[], iterations: number, warmup: number): Promise<number[][]> {
  const rounds = Math.min(INTERLEAVED_ROUNDS, iterations);
  const out = paths.map((): number[] => []);
  try {
    for (const p of paths) await p.run(warmup);
    for (let r = 0; r < rounds; r++) {
      const n = Math.floor(iterations / rounds) + (r < iterations % rounds ? 1 : 0);
      for (const [i, p] of paths.entries()) out[i]!.push(...(await p.run(n)));
    }
  } finally {
    for (const p of paths) p.close();
  }
  return out;
}
const INTERLEAVED_ROUNDS = 5;

export async function analyticsScenario(opts: {
  store: AnalyticsStore;
  baseUrl: string;
  key: string;
  accountId: string;
  /** Timed calls per path. */
  iterations: number;
  /** Timed calls on the rollup paths, which the GraphQL / direct ratio compares (cheap; more calls, a steadier p50). Default: iterations. */
  rollupIterations?: number;
  /** Untimed calls before each timed series (the client process, V8 and the compiled documents warm up). Default 10. */
  warmup?: number;
  log?: (line: string) => void;
}): Promise<AnalyticsRow[]> {
  const warmup = opts.warmup ?? 10;
  const rollupIterations = opts.rollupIterations ?? opts.iterations;
  // GraphQL as a client in another process sends it (child-http-client.ts): `n` sequential POSTs
  // on one connection after the warm-up; an answer with errors fails the scenario.
  const gql = async (query: string, n = opts.iterations) => timedClient(`${opts.baseUrl}/graphql`, { query }, n);
  const timedClient = async (url: string, body: unknown, n: number) => {
    const client = childHttpClient(url, opts.key, body);
    try {
      await client.run(warmup);
      return stats(await client.run(n));
    } finally {
      client.close();
    }
  };
  // Date-only range: the planner reads the day rollup. An endDate with a time (…:59.001): raw, except
  // playStatsByTime, which reads the day rollup inside and the raw rows of the ragged end (planSplit).
  const ROLLUP = 'startDate: "2026-01-01", endDate: "2026-03-31"';
  const RAW = 'startDate: "2026-01-01", endDate: "2026-03-31T23:59:59Z"';
  const principal = { accountId: opts.accountId, policies: POLICIES } as never;
  const TEN = Array.from({ length: 10 }, (_, i) => `d${i}`);
  const series = (end: string) => toSeriesQuery(principal, { startDate: '2026-01-01', endDate: end, interval: 'DAY' });
  const tenDevices = TEN.map((d) => `&deviceId=${d}`).join('');
  const restRange = 'startDate=2026-01-01&endDate=2026-03-31&interval=day';
  const cases: [string, (range: string) => string, string, (source: 'RAW' | 'DAY' | 'HOUR') => Promise<unknown>][] = [
    [
      'playStatsByTime (DAY, 90 days, all files: 90 rows)',
      (r) => `{ playStatsByTime(${r}, interval: DAY) { periodStart totalPlays totalDuration avgDuration } }`,
      `/analytics/playstatsbytime?${restRange}`,
      (s) => selectPlayStatsByTime(opts.store, series('2026-03-31'), false, s),
    ],
    [
      'deviceMetrics (DAY, 90 days, 10 devices: 900 rows)',
      (r) => `{ deviceMetrics(${r}, interval: DAY, deviceId: ${JSON.stringify(TEN)}) { deviceId periodStart avgCpuUsage uptimePercentage alertCount } }`,
      `/analytics/devicemetrics?${restRange}${tenDevices}`,
      (s) => selectDeviceMetrics(opts.store, { ...series('2026-03-31'), deviceIds: TEN }, s),
    ],
    [
      'audienceMetrics (DAY, 90 days, 10 devices: 900 rows)',
      (r) => `{ audienceMetrics(${r}, interval: DAY, deviceId: ${JSON.stringify(TEN)}) { deviceId periodStart totalImpressions uniqueVisitors maleCount } }`,
      `/analytics/audiencemetrics?${restRange}${tenDevices}`,
      (s) => selectAudienceMetrics(opts.store, { ...series('2026-03-31'), deviceIds: TEN }, false, s),
    ],
  ];
  const rows: AnalyticsRow[] = [];
  // Numbers to 6 significant digits: sums of doubles come out in another order from a rollup.
  const same = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (typeof x === 'number' ? Number(x.toPrecision(6)) : x));
  for (const [name, query, restPath, direct] of cases) {
    // The rollups must answer what the raw tables answer, or their timings mean nothing.
    if (same(await direct('RAW')) !== same(await direct('DAY'))) throw new Error(`analytics bench: ${name} differs between raw and rollup`);
    rows.push({
      query: name,
      path: 'GraphQL, endDate with a time (raw; playStatsByTime: rollup + raw end)',
      ...(await gql(query(RAW))),
    });
    // The three rollup paths in interleaved rounds (GraphQL, REST, SQL, GraphQL, ...): what the store
    // does meanwhile in the background (merging the parts just inserted) weighs on each alike, so
    // the milliseconds one path adds over another are not a drift between two stretches of time.
    const rollups = await interleaved(
      [
        childHttpClient(`${opts.baseUrl}/graphql`, opts.key, { query: query(ROLLUP) }),
        childHttpClient(`${opts.baseUrl}${restPath}`, opts.key, null),
        { run: (n: number) => times(n, () => direct('DAY')), close: () => undefined },
      ],
      rollupIterations,
      warmup,
    );
    rows.push({ query: name, path: 'GraphQL, rollups (planner)', ...stats(rollups[0]!) });
    rows.push({ query: name, path: 'REST, rollups (planner)', ...stats(rollups[1]!) });
    rows.push({ query: name, path: 'SQL direct on the store, raw', ...(await timed(opts.iterations, () => direct('RAW'))) });
    rows.push({ query: name, path: 'SQL direct on the store, rollup', ...stats(rollups[2]!) });
  }
  // The raw paths again once the closed months are one merged part each (what the ingest's
  // compaction keeps them as): FINAL then reads them without merging. The data's months all closed.
  const t = performance.now();
  const merged = await compactClosedPartitions(opts.store);
  opts.log?.(`closed months compacted in ${((performance.now() - t) / 1000).toFixed(1)} s: ${merged.join(', ')}`);
  for (const [name, query, , direct] of cases) {
    rows.push({ query: name, path: 'GraphQL, endDate with a time, closed months compacted', ...(await gql(query(RAW))) });
    rows.push({ query: name, path: 'SQL direct on the store, raw, closed months compacted', ...(await timed(opts.iterations, () => direct('RAW'))) });
  }
  return rows;
}

/**
 * Scenario 9 on a started bench app (the bench key, the demo account), printed as analyticsTable
 * prints it: `smoke` picks the call counts (2 timed calls and 1 warm-up, else 10 timed, 100 on the
 * rollup paths (in 5 interleaved rounds), 10 warm-up); `opts` overrides them.
 */
export async function analyticsReport(
  app: { analytics: AnalyticsStore; baseUrl: string },
  smoke: boolean,
  opts: Partial<Pick<Parameters<typeof analyticsScenario>[0], 'iterations' | 'rollupIterations' | 'warmup' | 'log'>> = {},
): Promise<string> {
  return analyticsTable(
    await analyticsScenario({
      store: app.analytics,
      baseUrl: app.baseUrl,
      key: BENCH_KEY,
      accountId: DEMO_ACCOUNT_ID,
      iterations: smoke ? 2 : 10,
      rollupIterations: smoke ? 2 : 100,
      warmup: smoke ? 1 : 10,
      ...opts,
    }),
  );
}

/**
 * The table, then per query the milliseconds GraphQL and REST add over the direct SQL on the rollups,
 * p50 and p95 (issue 39.1: target ≤ 2 ms added at p50). A ratio is the wrong figure on answers of a few
 * milliseconds: the stack's fixed cost (HTTP, authentication, the gateway, JSON) dominates it.
 */
export function analyticsTable(rows: AnalyticsRow[]): string {
  const lines = ['| query | path | p50 ms | p95 ms | p99 ms |', '|---|---|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.query} | ${r.path} | ${r.p50} | ${r.p95} | ${r.p99} |`);
  lines.push('');
  const ms = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(1)} ms`;
  for (const q of [...new Set(rows.map((r) => r.query))]) {
    const direct = rows.find((r) => r.query === q && r.path === 'SQL direct on the store, rollup');
    if (!direct) continue;
    for (const via of ['GraphQL', 'REST']) {
      const r = rows.find((x) => x.query === q && x.path === `${via}, rollups (planner)`);
      if (r)
        lines.push(
          `${q}: ${via} on rollups adds ${ms(r.p50 - direct.p50)} at p50, ${ms(r.p95 - direct.p95)} at p95 over the direct SQL (target ≤ +2 ms at p50)`,
        );
    }
  }
  return lines.join('\n');
}
