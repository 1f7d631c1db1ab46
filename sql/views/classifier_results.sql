-- classifier_results: each conversation's current result of each
-- classifier: the newest run not older than the conversation's own (a
-- reclassification replaces the ingest's result; processing the
-- conversation again replaces both).
CREATE VIEW classifier_results AS
SELECT r.* EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true) r
JOIN (SELECT conversation_id, run_id AS conversation_run FROM conversations) c USING (conversation_id)
WHERE r.run_id >= c.conversation_run
QUALIFY {{classifier_rank}} = 1;
