-- transcript_segments: the turns of each conversation's current transcript.
CREATE VIEW transcript_segments AS
SELECT s.* EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true) s
SEMI JOIN conversations c ON s.conversation_id = c.conversation_id AND s.run_id = c.run_id;
