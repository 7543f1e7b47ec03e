-- 004_audience_rollups: audience impressions per audience bucket (device, file, period, gender,
-- age range) per hour and per day, so audienceMetrics over months reads rollups (see
-- 003_rollups.sql for how the rollups are fed, read and planned, and their replay caveat).
-- Gender and age range are stored as the sensor spelled them (trimmed, lower-cased): the reads
-- map the spellings onto the interface's enums (services/analytics/src/audience.queries.ts), so
-- a spelling added there applies to old rows too. Visitors are a distinct-count state per bucket;
-- merging the states of a device's buckets gives the exact number of distinct visitors.
-- Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS audience_rollup_hour (
  account_id String,
  device_id String,
  file_id String,
  period DateTime('UTC'),
  gender LowCardinality(String),
  age_range LowCardinality(String),
  impressions SimpleAggregateFunction(sum, UInt64),
  dwell_sum SimpleAggregateFunction(sum, Float64),
  visitors AggregateFunction(uniqExactIf, String, UInt8)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period, file_id, gender, age_range);

CREATE TABLE IF NOT EXISTS audience_rollup_day AS audience_rollup_hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS audience_rollup_hour_mv TO audience_rollup_hour AS
SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  lower(trim(gender)) AS gender, lower(trim(age_range)) AS age_range,
  count() AS impressions, sum(dwell_time) AS dwell_sum, uniqExactIfState(visitor_id, visitor_id != '') AS visitors
FROM impressions GROUP BY account_id, device_id, file_id, period, gender, age_range;

CREATE MATERIALIZED VIEW IF NOT EXISTS audience_rollup_day_mv TO audience_rollup_day AS
SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  lower(trim(gender)) AS gender, lower(trim(age_range)) AS age_range,
  count() AS impressions, sum(dwell_time) AS dwell_sum, uniqExactIfState(visitor_id, visitor_id != '') AS visitors
FROM impressions GROUP BY account_id, device_id, file_id, period, gender, age_range;

-- Backfill what the raw table held before the views existed (empty on a new deployment).
INSERT INTO audience_rollup_hour SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  lower(trim(gender)) AS g, lower(trim(age_range)) AS a, count(), sum(dwell_time), uniqExactIfState(visitor_id, visitor_id != '')
FROM impressions FINAL GROUP BY account_id, device_id, file_id, period, g, a;

INSERT INTO audience_rollup_day SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  lower(trim(gender)) AS g, lower(trim(age_range)) AS a, count(), sum(dwell_time), uniqExactIfState(visitor_id, visitor_id != '')
FROM impressions FINAL GROUP BY account_id, device_id, file_id, period, g, a;
