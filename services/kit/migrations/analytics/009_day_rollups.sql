-- 009_day_rollups: the day grain of the two dashboard reads that still counted tens of thousands of
-- rows over 90 days (issue 18f).
--
-- * device_rollup_day: device_rollup_hour (006) per UTC day: the ping sums, maxima and alerts, and the
--   day's 1440 minutes as six 240-bit masks, one per four hours (m0: 00:00-03:59 UTC, ..., m5:
--   20:00-23:59; bit (hour % 4) * 60 + minute set = the device pinged in that minute), UInt256 each
--   (24 UInt64 masks, one per hour, cost a third more to read: more columns and aggregates). OR
--   merges partial rows exactly and is idempotent, as in 006, so the day's uptime minutes = the sum
--   of bitCount over the six ORed masks, exact at any time (open days too), and 90 days x 10 devices
--   read 900 rows instead of 21,600. Fed by a view on ping_logs; 005's deduplication window (exactly
--   once) and a repair entry (rollup-repair.ts) like the other rollups.
-- * audience_visitor_days: unique visitors per (account, device, UTC day) over all files, counted
--   from audience_visitors_day (006) once the day is over, by the ingest's periodic run
--   (services/analytics/src/workers/visitor-days.ts), so a DAY series reads one number per device
--   and day instead of the day's visitor rows. A distinct count cannot be kept by a view (it would
--   need the rows already stored), so this is a computed table with a validity rule, and a read
--   uses a row only when its latest version (ReplacingMergeTree(version), version = the database
--   clock before the statement that wrote a count read the visitor rows, or while the statement that
--   marked it invalid ran) is valid = 1; every other (device, day) is
--   counted from the visitor rows. A visitor row written into a day after its count was taken makes
--   the count invalid (valid = 0, a later version): the view below on every insert of a visitor
--   impression into a day before today, the ingest again after its insert completed (closing the
--   window where a count taken during that insert would be newer than the view's mark), and the
--   rollup repair after it completes visitor rows. The next run counts invalid days again.
--
-- Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS device_rollup_day (
  account_id String,
  device_id String,
  period DateTime('UTC'),
  pings SimpleAggregateFunction(sum, UInt64),
  cpu_sum SimpleAggregateFunction(sum, Float64),
  cpu_max SimpleAggregateFunction(max, Float64),
  mem_sum SimpleAggregateFunction(sum, Float64),
  mem_max SimpleAggregateFunction(max, Float64),
  alerts SimpleAggregateFunction(sum, UInt64),
  m0 SimpleAggregateFunction(groupBitOr, UInt256),
  m1 SimpleAggregateFunction(groupBitOr, UInt256),
  m2 SimpleAggregateFunction(groupBitOr, UInt256),
  m3 SimpleAggregateFunction(groupBitOr, UInt256),
  m4 SimpleAggregateFunction(groupBitOr, UInt256),
  m5 SimpleAggregateFunction(groupBitOr, UInt256)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period);

ALTER TABLE device_rollup_day MODIFY SETTING non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS device_rollup_day_mv TO device_rollup_day AS
SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count() AS pings, sum(cpu_usage) AS cpu_sum, max(cpu_usage) AS cpu_max,
  sum(memory_usage) AS mem_sum, max(memory_usage) AS mem_max,
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90) AS alerts,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 0) AS m0,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 1) AS m1,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 2) AS m2,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 3) AS m3,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 4) AS m4,
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 5) AS m5
FROM ping_logs GROUP BY account_id, device_id, period;

CREATE TABLE IF NOT EXISTS audience_visitor_days (
  account_id String,
  device_id String,
  period DateTime('UTC'),
  visitors UInt64,
  valid UInt8,
  version DateTime64(6, 'UTC')
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period);

-- A visitor impression for a day before today (UTC, the database clock) marks the day's count of its
-- device invalid; live traffic (today) writes nothing here.
CREATE MATERIALIZED VIEW IF NOT EXISTS audience_visitor_days_late_mv TO audience_visitor_days AS
SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  toUInt64(0) AS visitors, toUInt8(0) AS valid, now64(6, 'UTC') AS version
FROM impressions
WHERE visitor_id != '' AND timestamp < toStartOfDay(now('UTC'))
GROUP BY account_id, device_id, period;

-- Backfill what the raw tables held before the views existed (empty on a new deployment): the day
-- rollup from the raw pings (FINAL for the sums); the counts of the days that ended an hour ago or more
-- (every device and day with impressions; 0 where none had a visitor), versioned a second before the
-- statement (before it reads the visitor rows).
INSERT INTO device_rollup_day SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 0),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 1),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 2),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 3),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 4),
  groupBitOrIf(bitShiftLeft(toUInt256(1), toHour(toDateTime(timestamp, 'UTC')) % 4 * 60 + toMinute(toDateTime(timestamp, 'UTC'))), intDiv(toHour(toDateTime(timestamp, 'UTC')), 4) = 5)
FROM ping_logs FINAL GROUP BY account_id, device_id, period;

INSERT INTO audience_visitor_days SELECT account_id, device_id, period, ifNull(c.visitors, 0), 1, now64(6, 'UTC') - toIntervalSecond(1)
FROM (SELECT account_id, device_id, period FROM audience_rollup_day WHERE period <= now('UTC') - toIntervalHour(25) GROUP BY account_id, device_id, period) AS s
LEFT JOIN (
  SELECT account_id, device_id, period, uniqExact(visitor) AS visitors FROM audience_visitors_day
  WHERE period <= now('UTC') - toIntervalHour(25) GROUP BY account_id, device_id, period
) AS c USING (account_id, device_id, period);
