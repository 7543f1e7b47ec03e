-- 008_distinct_rollups_deduplication: 006's rollups exactly once too (issue 17e). 005 gave the raw
-- tables and the rollups of 003 and 004 a deduplication window, so an insert retried under its
-- token (services/analytics/src/workers/exactly-once.ts) is skipped in each table where it landed;
-- 006's tables, fed by views from ping_logs and impressions, were added after it and need the
-- same window, or a retried ping insert is summed twice into device_rollup_hour. Their repair
-- after a crash between the raw part and the views' parts is in rollup-repair.ts (ROLLUPS_OF).
-- Statements end with `;` at line end.

ALTER TABLE device_rollup_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE audience_visitors_hour MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE audience_visitors_day MODIFY SETTING non_replicated_deduplication_window = 1000;
