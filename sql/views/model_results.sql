-- model_results: each conversation's current machine result of each model
-- (classifier), as /ModelResults serves it before human reviews.
CREATE VIEW model_results AS
SELECT r.* EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true) r
JOIN (SELECT conversation_id, run_id AS conversation_run FROM conversations) c USING (conversation_id)
WHERE r.run_id >= c.conversation_run
QUALIFY {{model_rank}} = 1;
