-- conversations: one row per processed conversation, from its current run
-- (the rule of warehouse/lake/current.go, which {{conversation_run}} is):
-- its upload's newest run, or its own for a conversation without an
-- upload; the files keep older runs' rows until the compact job drops
-- them. date is the partition: the arrival date (UTC).
CREATE VIEW conversations AS
SELECT * EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true)
QUALIFY run_id = {{conversation_run}};
