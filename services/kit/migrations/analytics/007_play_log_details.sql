-- 007_play_log_details: what a play log says beyond the file and its duration (issue 23, the web
-- player): when the file left the screen (UTC), how the play ended, the player's clock offset from
-- the server when it played, and the template zone that showed it. Rows written before this
-- migration read as completed plays with no end, no offset and no zone.
-- Only completed plays are plays: the rollups (003) are fed by completed rows only, as the raw
-- play statistics and reports filter them (status = 'completed'), so a skipped or failed attempt is
-- listed in playLogs but never counted. The views are replaced (a view has no ALTER of its query on
-- both engines); rows inserted between the DROP and the CREATE would miss the rollups, so run this
-- where the migrations run: before the ingest starts. Statements end with `;` at line end.

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS end_timestamp Nullable(DateTime64(3, 'UTC'));

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS status LowCardinality(String) DEFAULT 'completed';

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS clock_offset_ms Nullable(Int64);

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS zone_id String DEFAULT '';

DROP VIEW IF EXISTS play_rollup_minute_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_minute_mv TO play_rollup_minute AS
SELECT account_id, device_id, file_id, toStartOfMinute(toDateTime(timestamp, 'UTC')) AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs WHERE status = 'completed' GROUP BY account_id, device_id, file_id, period;

DROP VIEW IF EXISTS play_rollup_hour_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_hour_mv TO play_rollup_hour AS
SELECT account_id, device_id, file_id, toStartOfHour(toDateTime(timestamp, 'UTC')) AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs WHERE status = 'completed' GROUP BY account_id, device_id, file_id, period;

DROP VIEW IF EXISTS play_rollup_day_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS play_rollup_day_mv TO play_rollup_day AS
SELECT account_id, device_id, file_id, toDateTime(toStartOfDay(toDateTime(timestamp, 'UTC')), 'UTC') AS period,
  count() AS plays, sum(duration) AS duration, argMaxState(file_name, (timestamp, file_name)) AS file_name
FROM play_logs WHERE status = 'completed' GROUP BY account_id, device_id, file_id, period;
