-- 009_day_rollups: the day grain of the two dashboard reads that still counted tens of thousands of
-- rows over 90 days (issue 18f).
--
-- * device_rollup_day: device_rollup_hour (006) per UTC day: the ping sums, maxima and alerts, and the
--   minute masks of the day's 24 hours as 24 columns (h00 = bit m set: the device pinged in minute
--   m of 00:00-00:59 UTC). OR merges partial rows exactly and is idempotent, as in 006, so the day's
--   uptime minutes = the sum of bitCount over the 24 ORed masks, exact at any time (open days too),
--   and 90 days x 10 devices read 900 rows instead of 21,600. Fed by a view on ping_logs; 005's
--   deduplication window (exactly once) and a repair entry (rollup-repair.ts) like the other rollups.
-- * audience_visitor_days: unique visitors per (account, device, UTC day) over all files, counted
--   from audience_visitors_day (006) once the day is over, by the ingest's periodic run
--   (services/analytics/src/workers/visitor-days.ts), so a DAY series reads one number per device
--   and day instead of the day's visitor rows. A distinct count cannot be kept by a view (it would
--   need the rows already stored), so this is a computed table with a validity rule, and a read
--   uses a row only when its latest version (ReplacingMergeTree(version), version = the database
--   clock when the statement that wrote it started) is valid = 1; every other (device, day) is
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
  h00 SimpleAggregateFunction(groupBitOr, UInt64),
  h01 SimpleAggregateFunction(groupBitOr, UInt64),
  h02 SimpleAggregateFunction(groupBitOr, UInt64),
  h03 SimpleAggregateFunction(groupBitOr, UInt64),
  h04 SimpleAggregateFunction(groupBitOr, UInt64),
  h05 SimpleAggregateFunction(groupBitOr, UInt64),
  h06 SimpleAggregateFunction(groupBitOr, UInt64),
  h07 SimpleAggregateFunction(groupBitOr, UInt64),
  h08 SimpleAggregateFunction(groupBitOr, UInt64),
  h09 SimpleAggregateFunction(groupBitOr, UInt64),
  h10 SimpleAggregateFunction(groupBitOr, UInt64),
  h11 SimpleAggregateFunction(groupBitOr, UInt64),
  h12 SimpleAggregateFunction(groupBitOr, UInt64),
  h13 SimpleAggregateFunction(groupBitOr, UInt64),
  h14 SimpleAggregateFunction(groupBitOr, UInt64),
  h15 SimpleAggregateFunction(groupBitOr, UInt64),
  h16 SimpleAggregateFunction(groupBitOr, UInt64),
  h17 SimpleAggregateFunction(groupBitOr, UInt64),
  h18 SimpleAggregateFunction(groupBitOr, UInt64),
  h19 SimpleAggregateFunction(groupBitOr, UInt64),
  h20 SimpleAggregateFunction(groupBitOr, UInt64),
  h21 SimpleAggregateFunction(groupBitOr, UInt64),
  h22 SimpleAggregateFunction(groupBitOr, UInt64),
  h23 SimpleAggregateFunction(groupBitOr, UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (account_id, device_id, period);

ALTER TABLE device_rollup_day MODIFY SETTING non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS device_rollup_day_mv TO device_rollup_day AS
SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count() AS pings, sum(cpu_usage) AS cpu_sum, max(cpu_usage) AS cpu_max,
  sum(memory_usage) AS mem_sum, max(memory_usage) AS mem_max,
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90) AS alerts,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 0) AS h00,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 1) AS h01,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 2) AS h02,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 3) AS h03,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 4) AS h04,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 5) AS h05,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 6) AS h06,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 7) AS h07,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 8) AS h08,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 9) AS h09,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 10) AS h10,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 11) AS h11,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 12) AS h12,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 13) AS h13,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 14) AS h14,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 15) AS h15,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 16) AS h16,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 17) AS h17,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 18) AS h18,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 19) AS h19,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 20) AS h20,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 21) AS h21,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 22) AS h22,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 23) AS h23
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
-- (every device and day with impressions; 0 where none had a visitor).
INSERT INTO device_rollup_day SELECT account_id, device_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count(), sum(cpu_usage), max(cpu_usage), sum(memory_usage), max(memory_usage),
  countIf(greatest(cpu_usage, memory_usage, disk_usage) >= 90),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 0),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 1),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 2),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 3),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 4),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 5),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 6),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 7),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 8),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 9),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 10),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 11),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 12),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 13),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 14),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 15),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 16),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 17),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 18),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 19),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 20),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 21),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 22),
  groupBitOrIf(bitShiftLeft(toUInt64(1), toMinute(toDateTime(timestamp, 'UTC'))), toHour(toDateTime(timestamp, 'UTC')) = 23)
FROM ping_logs FINAL GROUP BY account_id, device_id, period;

INSERT INTO audience_visitor_days SELECT account_id, device_id, period, ifNull(c.visitors, 0), 1, now64(6, 'UTC')
FROM (SELECT account_id, device_id, period FROM audience_rollup_day WHERE period <= now('UTC') - toIntervalHour(25) GROUP BY account_id, device_id, period) AS s
LEFT JOIN (
  SELECT account_id, device_id, period, uniqExact(visitor) AS visitors FROM audience_visitors_day
  WHERE period <= now('UTC') - toIntervalHour(25) GROUP BY account_id, device_id, period
) AS c USING (account_id, device_id, period);
