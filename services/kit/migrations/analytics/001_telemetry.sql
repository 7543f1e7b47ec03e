-- 001_telemetry: device telemetry, proof of play, player events, audience impressions, audit trail.
-- One schema for chDB and ClickHouse server. Every table is tenant-first (ORDER BY account_id, ...),
-- partitioned by month, and a ReplacingMergeTree whose sorting key ends in the event id, so a
-- replayed event (same id, same account/device/timestamp) collapses into one row on merge;
-- read with FINAL where an exact count matters. Statements end with `;` at line end.

CREATE TABLE IF NOT EXISTS ping_logs (
  id String,
  account_id String,
  device_id String,
  timestamp DateTime64(3, 'UTC'),
  cpu_usage Float64,
  memory_usage Float64,
  disk_usage Float64,
  player_version String,
  ip_address String,
  external_ip_address String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, device_id, timestamp, id);

CREATE TABLE IF NOT EXISTS play_logs (
  id String,
  account_id String,
  device_id String,
  file_id String,
  file_name String,
  timestamp DateTime64(3, 'UTC'),
  duration Float64, -- seconds
  type String,
  playlist_id String,
  schedule_id String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, device_id, timestamp, id);

CREATE TABLE IF NOT EXISTS event_logs (
  id String,
  account_id String,
  device_id String,
  session_id String,
  event_name String,
  timestamp DateTime64(3, 'UTC'),
  properties String, -- JSON text
  latitude Nullable(Float64),
  longitude Nullable(Float64)
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, device_id, timestamp, id);

CREATE TABLE IF NOT EXISTS impressions (
  id String,
  account_id String,
  device_id String,
  file_id String,
  timestamp DateTime64(3, 'UTC'),
  sensor String,
  dwell_time Float64,
  gender LowCardinality(String),
  age_range LowCardinality(String),
  visitor_id String,
  latitude Nullable(Float64),
  longitude Nullable(Float64)
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, file_id, timestamp, id);

CREATE TABLE IF NOT EXISTS audit_events (
  event_id String,
  account_id String,
  timestamp DateTime64(3, 'UTC'),
  event_type String,
  user_id String,
  user_name String,
  http_method String,
  controller_name String,
  action_name String,
  ip_address String,
  response_code UInt16,
  interface String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (account_id, timestamp, event_id);
