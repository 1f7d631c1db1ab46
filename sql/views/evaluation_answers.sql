-- evaluation_answers: the export job's latest snapshot of the quality
-- evaluations' answers, one row per answered question, one file per
-- organization (lake/export/evaluation_answers/org=ORG/snapshot.parquet).
CREATE VIEW evaluation_answers AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
