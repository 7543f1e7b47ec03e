-- 010_timestamp_codecs: the raw tables' timestamps stored as deltas (issue 18).
--
-- A raw table is sorted by (account, device or file, timestamp, id), so within one device its
-- timestamps rise. LZ4 alone kept ~70 % of their 8 bytes (530 MiB of 763 MiB for 100M play logs,
-- where every other column read by a statistic compresses to a few MiB), and a raw scan of 100M
-- play logs spent ~0.4 s of its 1.4 s decompressing them. Delta(8) then LZ4 stores the
-- differences between neighbours (small numbers, mostly zero bytes), which LZ4 packs tightly and
-- decompresses as fast. The codec is metadata: new parts are written with it, older ones take it
-- when they are merged (the ingest's compaction merges each closed month once), and reads are the
-- same either way. Both engines accept a codec change on a sorting-key column (the type is kept).

ALTER TABLE play_logs MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta(8), LZ4);

ALTER TABLE ping_logs MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta(8), LZ4);

ALTER TABLE event_logs MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta(8), LZ4);

ALTER TABLE impressions MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta(8), LZ4);

ALTER TABLE audit_events MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta(8), LZ4);
