/**
 * Repair of the rollups after a redelivery (issue 17d). An insert into a raw table commits the raw
 * part before the parts of the rollups its materialized views feed: a consumer process that dies in
 * between (or a view that fails) leaves the records stored raw but missing from the rollups, and
 * the redelivery then finds them stored (exactly-once.ts drops them). So whenever a batch held
 * records already stored, the rollups of their devices over the days they fall in are compared with
 * the raw table (FINAL) and what they miss is inserted: the difference of the counts and sums, and
 * the raw answer of the idempotent columns (max, argMax and distinct-count states, minute masks),
 * which merge into what is there without changing it. A rollup already equal to the raw table gets
 * nothing. A rollup of idempotent rows only (006's visitor tables: no sums) gets the raw answer
 * for those devices and days, rows it may hold already, which change no distinct count.
 *
 * The statements mirror the views of migrations 003, 004, 006, 007 and 009; a rollup added or changed there
 * needs its entry here (`ROLLUPS_OF`). Only missing counts are added: a rollup above the raw answer (rows
 * counted twice before issue 17d) is left as it is.
 */
import type { AnalyticsStore } from '@pylon/kit';

interface RollupSpec {
  rollup: string;
  /** Key columns after the account and device: name and the raw expression. */
  keys: [string, string][];
  /** The period of a raw row. */
  period: string;
  /** Summed columns (the first is the row count): name and raw expression. None: idempotent rows only. */
  sums: [string, string][];
  /** Idempotent columns (max, argMax and uniq states): name and raw expression. */
  same: [string, string][];
  /** The raw rows the view reads (a condition), when not all. */
  where?: string;
}

const AT = "toDateTime(timestamp, 'UTC')";
const MINUTE = `toStartOfMinute(${AT})`;
const HOUR = `toStartOfHour(${AT})`;
const DAY = `toDateTime(toStartOfDay(${AT}), 'UTC')`;

const plays = (rollup: string, period: string): RollupSpec => ({
  rollup,
  keys: [['file_id', 'file_id']],
  period,
  sums: [
    ['plays', 'count()'],
    ['duration', 'sum(duration)'],
  ],
  same: [['file_name', 'argMaxState(file_name, (timestamp, file_name))']],
  // Only completed plays are counted (migration 007 feeds the play rollups from them alone).
  where: "status = 'completed'",
});
const audience = (rollup: string, period: string): RollupSpec => ({
  rollup,
  keys: [
    ['file_id', 'file_id'],
    ['gender', 'lower(trim(gender))'],
    ['age_range', 'lower(trim(age_range))'],
  ],
  period,
  sums: [
    ['impressions', 'count()'],
    ['dwell_sum', 'sum(dwell_time)'],
  ],
  same: [['visitors', "uniqExactIfState(visitor_id, visitor_id != '')"]],
});
/** 006's visitor rows: one per device, file, period and visitor hash. */
const visitors = (rollup: string, period: string): RollupSpec => ({
  rollup,
  keys: [
    ['file_id', 'file_id'],
    ['visitor', 'reinterpretAsUInt128(sipHash128(visitor_id))'],
  ],
  period,
  sums: [],
  same: [],
  where: "visitor_id != ''",
});
const PING_SUMS: [string, string][] = [
  ['pings', 'count()'],
  ['cpu_sum', 'sum(cpu_usage)'],
  ['mem_sum', 'sum(memory_usage)'],
  ['alerts', 'countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90)'],
];
const PING_MAX: [string, string][] = [
  ['cpu_max', 'max(cpu_usage)'],
  ['mem_max', 'max(memory_usage)'],
];

/** The rollups each raw table feeds (migrations 003, 004, 006 and 009), in the order repaired. */
export const ROLLUPS_OF: Record<string, RollupSpec[]> = {
  play_logs: [plays('play_rollup_minute', MINUTE), plays('play_rollup_hour', HOUR), plays('play_rollup_day', DAY)],
  ping_logs: [
    {
      rollup: 'ping_rollup_hour',
      keys: [],
      period: HOUR,
      sums: PING_SUMS,
      same: [...PING_MAX, ['up_minutes', `uniqExactState(${MINUTE})`]],
    },
    {
      rollup: 'device_rollup_hour',
      keys: [],
      period: HOUR,
      sums: PING_SUMS,
      same: [...PING_MAX, ['minutes', `groupBitOr(bitShiftLeft(toUInt64(1), toMinute(${AT})))`]],
    },
    {
      // 009: the day's minute masks, one per four hours (bit (hour % 4) * 60 + minute).
      rollup: 'device_rollup_day',
      keys: [],
      period: DAY,
      sums: PING_SUMS,
      same: [
        ...PING_MAX,
        ...Array.from({ length: 6 }, (_, k): [string, string] => [
          `m${k}`,
          `groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(${AT}) % 4 * 60 + toMinute(${AT})), intDiv(toHour(${AT}), 4) = ${k})`,
        ]),
      ],
    },
  ],
  event_logs: [
    {
      rollup: 'event_rollup_hour',
      keys: [['event_name', 'event_name']],
      period: HOUR,
      sums: [['events', 'count()']],
      same: [['sessions', "uniqExactIfState(tuple(device_id, session_id), session_id != '')"]],
    },
  ],
  impressions: [
    audience('audience_rollup_hour', HOUR),
    audience('audience_rollup_day', DAY),
    visitors('audience_visitors_hour', HOUR),
    visitors('audience_visitors_day', DAY),
    // 009's day counts: marked invalid (counted again by the next run) once the visitor rows above
    // are complete, for every day repaired (the view marks the days before today only).
    {
      rollup: 'audience_visitor_days',
      keys: [],
      period: DAY,
      sums: [],
      same: [
        ['visitors', 'toUInt64(0)'],
        ['valid', 'toUInt8(0)'],
        ['version', "now64(6, 'UTC')"],
      ],
      where: "visitor_id != ''",
    },
  ],
};

function repairSql(raw: string, s: RollupSpec): string {
  const keyNames = ['account_id', 'device_id', ...s.keys.map(([n]) => n), 'period'];
  const rawCols = ['account_id', 'device_id', ...s.keys.map(([n, e]) => `${e} AS ${n}`), `${s.period} AS period`];
  const scope = 'account_id IN {a:Array(String)} AND device_id IN {d:Array(String)}';
  const window = "timestamp >= fromUnixTimestamp64Milli({w0:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({w1:Int64}, 'UTC')";
  const filter = s.where ? ` AND ${s.where}` : '';
  const count = s.sums[0]?.[0];
  if (count === undefined) {
    return `INSERT INTO ${s.rollup} (${[...keyNames, ...s.same.map(([n]) => n)].join(', ')})
SELECT ${[...rawCols, ...s.same.map(([n, e]) => `${e} AS ${n}`)].join(', ')}
FROM ${raw} FINAL
WHERE ${scope} AND ${window}${filter}
GROUP BY ${keyNames.join(', ')}`;
  }
  return `INSERT INTO ${s.rollup} (${[...keyNames, ...s.sums.map(([n]) => n), ...s.same.map(([n]) => n)].join(', ')})
SELECT ${[...keyNames.map((k) => `r.${k}`), ...s.sums.map(([n]) => `r.${n} - x.${n}`), ...s.same.map(([n]) => `r.${n}`)].join(', ')}
FROM (
  SELECT ${[...rawCols, ...s.sums.map(([n, e]) => `${e} AS ${n}`), ...s.same.map(([n, e]) => `${e} AS ${n}`)].join(', ')}
  FROM ${raw} FINAL
  WHERE ${scope} AND ${window}${filter}
  GROUP BY ${keyNames.join(', ')}
) AS r
LEFT JOIN (
  SELECT ${[...keyNames, ...s.sums.map(([n]) => `sum(${n}) AS ${n}`)].join(', ')}
  FROM ${s.rollup}
  WHERE ${scope} AND period >= toDateTime(intDiv({w0:Int64}, 1000), 'UTC') AND period < toDateTime(intDiv({w1:Int64}, 1000), 'UTC')
  GROUP BY ${keyNames.join(', ')}
) AS x USING (${keyNames.join(', ')})
WHERE r.${count} > x.${count}`;
}

const DAY_MS = 86_400_000;
/** Devices one repair statement covers. */
const REPAIR_DEVICES = 2_000;

/**
 * Makes the rollups fed by `table` hold what the raw table holds for the devices of `rows` (records
 * found stored on a redelivery), over the whole UTC days their timestamps fall in.
 */
export async function repairRollups(store: Pick<AnalyticsStore, 'exec'>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const specs = ROLLUPS_OF[table];
  if (!specs || rows.length === 0) return;
  const accounts = new Set<string>();
  const devices = new Set<string>();
  let from = Infinity;
  let to = -Infinity;
  for (const row of rows) {
    const t = Date.parse(String(row.timestamp));
    if (!Number.isFinite(t)) continue;
    accounts.add(String(row.account_id ?? ''));
    devices.add(String(row.device_id ?? ''));
    from = Math.min(from, t);
    to = Math.max(to, t);
  }
  if (accounts.size === 0) return;
  const window = { a: [...accounts], w0: Math.floor(from / DAY_MS) * DAY_MS, w1: (Math.floor(to / DAY_MS) + 1) * DAY_MS };
  // A slice of devices per statement keeps the parameters small (see LOOKUP_VALUES in exactly-once.ts).
  const all = [...devices];
  for (let i = 0; i < all.length; i += REPAIR_DEVICES) {
    const params = { ...window, d: all.slice(i, i + REPAIR_DEVICES) };
    for (const spec of specs) await store.exec(repairSql(table, spec), params);
  }
}
