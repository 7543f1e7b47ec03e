-- 002_player_ingestion: a play log whose file id named no media file of the account when it was
-- received is kept (proof of play must not be lost to a deleted or mistyped file) and flagged here.
-- Rows written before this migration were all known files.

ALTER TABLE play_logs ADD COLUMN IF NOT EXISTS file_known UInt8 DEFAULT 1;
