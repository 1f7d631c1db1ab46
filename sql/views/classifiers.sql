-- classifiers: the export job's latest snapshot of the catalog's classifiers, one file per
-- organization (lake/export/classifiers/org=ORG/snapshot.parquet).
CREATE VIEW classifiers AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
