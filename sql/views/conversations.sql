-- conversations: one row per processed conversation, from its current run:
-- an upload's newest run (an archive processed again has new chats, whose
-- rows replace those of its earlier chats; a chat or call processed again
-- has rows of both runs) until the compact job keeps only the current
-- rows. date is the partition: the arrival date (UTC).
CREATE VIEW conversations AS
SELECT * EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true)
QUALIFY run_id = max(run_id) OVER (PARTITION BY coalesce(upload_id, conversation_id));
