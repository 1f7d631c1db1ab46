-- organizations: the export job's latest snapshot of the catalog's organizations, one file per
-- organization (lake/export/organizations/org=ORG/snapshot.parquet).
CREATE VIEW organizations AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
