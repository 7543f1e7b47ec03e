-- 002_player_ingestion: a play log whose file id named no media file of the account when it was
-- received is kept (proof of play must not be lost to a deleted or mistyped file) and flagged here.
-- Rows written before this migration were all known files.

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS file_known UInt8 DEFAULT 1;

-- Telemetry the ingest gave up on (the store refused it repeatedly while it was up): the original
-- message as JSON text and why, for an operator to read and, once the cause is fixed, to replay
-- (README: "Telemetry pipeline"). Operator data across accounts, keyed by its stream position.
-- A replay writes the row again with replayed = 1, which supersedes it (the engine's version).
CREATE TABLE IF NOT EXISTS dead_letters (
  id String,
  topic String,
  consumer_group String,
  position String,
  key String,
  value String,
  error String,
  attempts UInt32,
  dead_lettered_at DateTime64(3, 'UTC'),
  replayed UInt8 DEFAULT 0
) ENGINE = ReplacingMergeTree(replayed)
ORDER BY (topic, id);
