-- hierarchy: the export job's latest snapshot of the catalog's hierarchy, one file per
-- organization (lake/export/hierarchy/org=ORG/snapshot.parquet).
CREATE VIEW hierarchy AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
