-- 006_distinct_rollups: the distinct counts of the rollups (device uptime minutes, audience
-- visitors) as plain values a read sums or counts, instead of uniqExact states it must
-- deserialise and merge (003's ping_rollup_hour.up_minutes and 004's audience_rollup_*.visitors
-- cost hundreds of ms over months; they stay in place but are no longer read).
--
-- * ping_uptime_hour: per device and UTC hour, a 60-bit mask: bit m set = the device pinged in
--   minute m of the hour. OR merges partial rows exactly; uptime minutes of an hour =
--   bitCount(groupBitOr(minutes)), and the minutes of a period are the sum over its hours (a
--   minute lies in one hour). OR is idempotent: a replayed ping changes nothing.
-- * audience_visitors_hour / _day: one row per (device, file, period, visitor); a period's
--   unique visitors = uniqExact(visitor) over its rows (a file filter applies as on the audience
--   rollup). The visitor is kept as the 128-bit SipHash of its id, the key uniqExact itself
--   keeps for a string, so the count equals the raw tables' uniqExact(visitor_id); a fixed-width
--   key counts about 5x faster than the string. Duplicate rows (replays, a re-run backfill) change no distinct count; the
--   ReplacingMergeTree drops them on merge.
--
-- Both are correct under a re-run and while ingest goes on (the views and the backfill may feed
-- a row twice: it counts once). Periods in UTC, as the other rollups; the planner
-- (services/analytics/src/domain/rollup-plan.ts) reads them with the rollup of the same grain.
-- Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS ping_uptime_hour (
  account_id String,
  device_id String,
  period DateTime('UTC'),
  minutes SimpleAggregateFunction(groupBitOr, UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period);

CREATE MATERIALIZED VIEW IF NOT EXISTS ping_uptime_hour_mv TO ping_uptime_hour AS
SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
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

-- Backfill what the raw tables held before the views existed (no FINAL needed: a duplicate
-- counts once in both).
INSERT INTO ping_uptime_hour SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  groupBitOr(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))))
FROM ping_logs GROUP BY account_id, device_id, period;

INSERT INTO audience_visitors_hour SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;

INSERT INTO audience_visitors_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  reinterpretAsUInt128(sipHash128(visitor_id)) AS visitor
FROM impressions WHERE visitor_id != '' GROUP BY account_id, device_id, file_id, period, visitor;
