-- evaluation_answers: the export job's latest snapshot of the quality
-- evaluations' answers, one row per answered question, in a folder per
-- organization and day (lake/export/evaluation_answers/org=ORG/date=YYYY-MM-DD/).
-- date is the partition: the day the evaluation was assigned (UTC; an
-- Auto evaluation's: when its conversation was processed).
CREATE VIEW evaluation_answers AS
SELECT * EXCLUDE (org) FROM read_parquet({{files}}, hive_partitioning = true);
