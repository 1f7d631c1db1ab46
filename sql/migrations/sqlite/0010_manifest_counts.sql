-- Counts of a conversations file kept in its manifest entry, so that
-- X-Total-Records of a window of whole days is a sum over the manifest
-- instead of a scan of millions of rows (NULL on files written before:
-- those are counted by a scan).
ALTER TABLE lake_files ADD COLUMN node_counts VARCHAR;          -- JSON {hierarchy node id: conversations}, "" for none
ALTER TABLE lake_files ADD COLUMN complete_classifiers VARCHAR; -- JSON [classifier ids with a result for every conversation of the file]
