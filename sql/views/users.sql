-- users: the export job's latest snapshot of the catalog's users, one file per
-- organization (lake/export/users/org=ORG/snapshot.parquet).
CREATE VIEW users AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
