-- conversations: one row per processed conversation, from its current run
-- (a conversation processed again has rows of both runs until the compact
-- job keeps the newest). date is the partition: the arrival date (UTC).
CREATE VIEW conversations AS
SELECT * EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true)
QUALIFY row_number() OVER (PARTITION BY conversation_id ORDER BY run_id DESC) = 1;
