-- 005_insert_deduplication: exactly once into the rollups (issue 17d). A raw table collapses a
-- replayed event on merge (ReplacingMergeTree), but a rollup fed by a materialized view counts
-- every insert it sees, so the ingest (services/analytics/src/ingest/exactly-once.ts) drops the
-- records already stored before it inserts, and gives each insert a deduplication token made from
-- the ids it carries. The window below is how many recent insert tokens (or, without a token, block
-- hashes) each table remembers: a retry of an insert whose outcome was unknown (a timeout, a
-- connection reset, a failure part-way through the views) is skipped where it already landed and
-- completed where it did not, in the raw table and in each rollup on its own. A table added later
-- that a view feeds from a raw table needs the same setting.
-- Statements end with `;` at line end.

ALTER TABLE ping_logs MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE play_logs MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE event_logs MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE impressions MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE audit_events MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE play_rollup_minute MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE play_rollup_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE play_rollup_day MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE ping_rollup_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE event_rollup_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE audience_rollup_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE audience_rollup_day MODIFY SETTING non_replicated_deduplication_window = 1000;
