-- agents: the export job's latest snapshot of the catalog's agents, one file per
-- organization (lake/export/agents/org=ORG/snapshot.parquet).
CREATE VIEW agents AS
SELECT * FROM read_parquet({{files}}, hive_partitioning = false);
