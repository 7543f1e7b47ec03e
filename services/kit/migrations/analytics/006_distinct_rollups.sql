-- 006_distinct_rollups: the distinct counts of the rollups (device uptime minutes, audience
-- visitors) as plain values a read sums or counts, instead of uniqExact states it must
-- deserialise and merge (003's ping_rollup_hour.up_minutes and 004's audience_rollup_*.visitors
-- cost hundreds of ms over months; they stay in place but are no longer read).
--
-- * device_rollup_hour: the hourly ping rollup again (003's ping_rollup_hour sums, which it
--   supersedes for reads) plus, per device and UTC hour, a 60-bit minute mask: bit m set = the
--   device pinged in minute m of the hour. OR merges partial rows exactly; uptime minutes of an
--   hour = bitCount(groupBitOr(minutes)), and the minutes of a period are the sum over its hours (a
--   minute lies in one hour). OR is idempotent: a replayed ping changes no uptime. Sums and mask in
--   one table, so a read scans one table once.
-- * audience_visitors_hour / _day: one row per (device, file, period, visitor); a period's
--   unique visitors = uniqExact(visitor) over its rows (a file filter applies as on the audience
--   rollup). The visitor is kept as the 128-bit SipHash of its id, the key uniqExact itself
--   keeps for a string, so the count equals the raw tables' uniqExact(visitor_id); a fixed-width
--   key counts about 5x faster than the string. Duplicate rows (replays, a re-run backfill)
--   change no distinct count; the ReplacingMergeTree drops them on merge.
--
-- The distinct counts are correct under a re-run and while ingest goes on (the views and the
-- backfill may feed a row twice: it counts once); device_rollup_hour's sums have 003's caveat (a
-- ping inserted between its view's creation and its backfill is summed twice). A replayed batch
-- is not: migration 008 gives these tables 005's deduplication window. ping_rollup_hour stays (fed, no longer read) for processes of the previous version
-- during a rolling deployment; a later migration may drop it. Periods in UTC, as the other
-- rollups; the planner (services/analytics/src/domain/rollup-plan.ts) reads them at their grain.
-- Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS device_rollup_hour (
  account_id String,
  device_id String,
  period DateTime('UTC'),
  pings SimpleAggregateFunction(sum, UInt64),
  cpu_sum SimpleAggregateFunction(sum, Float64),
  cpu_max SimpleAggregateFunction(max, Float64),
  mem_sum SimpleAggregateFunction(sum, Float64),
  mem_max SimpleAggregateFunction(max, Float64),
  alerts SimpleAggregateFunction(sum, UInt64),
  minutes SimpleAggregateFunction(groupBitOr, UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period);

CREATE MATERIALIZED VIEW IF NOT EXISTS device_rollup_hour_mv TO device_rollup_hour AS
SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count() AS pings, sum(cpu_usage) AS cpu_sum, max(cpu_usage) AS cpu_max,
  sum(memory_usage) AS mem_sum, max(memory_usage) AS mem_max,
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90) AS alerts,
  groupBitOr(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC')))) AS minutes
FROM ping_logs GROUP BY account_id, device_id, period;

CREATE TABLE IF NOT EXISTS audience_visitors_hour (
  account_id String,
  device_id String,
  file_id String,
  period DateTime('UTC'),
  visitor UInt128
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period, file_id, visitor);

CREATE TABLE IF NOT EXISTS audience_visitors_day AS audience_visitors_hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS audience_visitors_hour_mv TO audience_visitors_hour AS
SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;

CREATE MATERIALIZED VIEW IF NOT EXISTS audience_visitors_day_mv TO audience_visitors_day AS
SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;

-- Backfill what the raw tables held before the views existed (FINAL for the sums; a duplicate
-- counts once in the masks and visitor rows anyway).
INSERT INTO device_rollup_hour SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90),
  groupBitOr(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))))
FROM ping_logs FINAL GROUP BY account_id, device_id, period;

INSERT INTO audience_visitors_hour SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;

INSERT INTO audience_visitors_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;
