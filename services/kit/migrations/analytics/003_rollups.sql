-- 003_rollups: materialized rollups of the raw telemetry tables, so dashboards over months read
-- thousands of rows instead of millions. Each rollup is an AggregatingMergeTree fed by a
-- materialized view on insert into the raw table (periods in UTC; a rollup row is the sum of
-- the raw rows of its period, merged in the background and summed again by every read).
-- services/analytics/src/domain/rollup-plan.ts chooses raw or a rollup per query: a rollup
-- answers when every period boundary of the query falls on its grain.
-- Replays: the raw tables collapse a replayed event (ReplacingMergeTree + FINAL); a rollup
-- counted it when it arrived, so a replayed batch is counted twice in the rollups (uptime and
-- visitor counts excepted: they are distinct counts). The ingest replays only after a failed
-- insert; `optimize`-free rebuild: TRUNCATE the rollup and re-run its backfill statement.
-- Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS play_rollup_minute (
  account_id String,
  device_id String,
  file_id String,
  period DateTime('UTC'),
  plays SimpleAggregateFunction(sum, UInt64),
  duration SimpleAggregateFunction(sum, Float64),
  -- The name at the latest play (ties: the greatest name), as the raw queries pick it.
  file_name AggregateFunction(argMax, String, Tuple(DateTime64(3, 'UTC'), String))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, period, device_id, file_id);

CREATE TABLE IF NOT EXISTS play_rollup_hour AS play_rollup_minute;

CREATE TABLE IF NOT EXISTS play_rollup_day AS play_rollup_minute;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_minute_mv TO play_rollup_minute AS
SELECT account_id, device_id, file_id, toStartOfMinute(toDateTime(timestamp, 'UTC')) AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs GROUP BY account_id, device_id, file_id, period;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_hour_mv TO play_rollup_hour AS
SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs GROUP BY account_id, device_id, file_id, period;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_day_mv TO play_rollup_day AS
SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs GROUP BY account_id, device_id, file_id, period;

CREATE TABLE IF NOT EXISTS ping_rollup_hour (
  account_id String,
  device_id String,
  period DateTime('UTC'),
  pings SimpleAggregateFunction(sum, UInt64),
  cpu_sum SimpleAggregateFunction(sum, Float64),
  cpu_max SimpleAggregateFunction(max, Float64),
  mem_sum SimpleAggregateFunction(sum, Float64),
  mem_max SimpleAggregateFunction(max, Float64),
  alerts SimpleAggregateFunction(sum, UInt64),
  up_minutes AggregateFunction(uniqExact, DateTime('UTC'))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
-- Device first: fleet dashboards ask for some devices; merging uptime states is the cost to avoid.
ORDER BY (account_id, device_id, period);

CREATE MATERIALIZED VIEW IF NOT EXISTS ping_rollup_hour_mv TO ping_rollup_hour AS
SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count() AS pings, sum(cpu_usage) AS cpu_sum, max(cpu_usage) AS cpu_max,
  sum(memory_usage) AS mem_sum, max(memory_usage) AS mem_max,
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90) AS alerts,
  uniqExactState(toStartOfMinute(toDateTime(timestamp, 'UTC'))) AS up_minutes
FROM ping_logs GROUP BY account_id, device_id, period;

CREATE TABLE IF NOT EXISTS event_rollup_hour (
  account_id String,
  device_id String,
  event_name String,
  period DateTime('UTC'),
  events SimpleAggregateFunction(sum, UInt64),
  sessions AggregateFunction(uniqExactIf, Tuple(String, String), UInt8)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, period, event_name, device_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS event_rollup_hour_mv TO event_rollup_hour AS
SELECT account_id, device_id, event_name, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count() AS events, uniqExactIfState(tuple(device_id, session_id), session_id != '') AS sessions
FROM event_logs GROUP BY account_id, device_id, event_name, period;

-- Backfill what the raw tables held before the views existed (empty on a new deployment).
INSERT INTO play_rollup_minute SELECT account_id, device_id, file_id, toStartOfMinute(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(duration), argMaxState(file_name, (timestamp, file_name)) FROM play_logs FINAL GROUP BY account_id, device_id, file_id, period;

INSERT INTO play_rollup_hour SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(duration), argMaxState(file_name, (timestamp, file_name)) FROM play_logs FINAL GROUP BY account_id, device_id, file_id, period;

INSERT INTO play_rollup_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count(), sum(duration), argMaxState(file_name, (timestamp, file_name)) FROM play_logs FINAL GROUP BY account_id, device_id, file_id, period;

INSERT INTO ping_rollup_hour SELECT account_id, device_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90), uniqExactState(toStartOfMinute(toDateTime(timestamp, 'UTC')))
FROM ping_logs FINAL GROUP BY account_id, device_id, period;

INSERT INTO event_rollup_hour SELECT account_id, device_id, event_name, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count(), uniqExactIfState(tuple(device_id, session_id), session_id != '')
FROM event_logs FINAL GROUP BY account_id, device_id, event_name, period;
