-- The first and last arrival of a conversations file's rows, kept in its
-- manifest entry: a window that holds a file's arrivals counts it from the
-- manifest, and one that holds none of them skips it, where a window of
-- part of its day read it (NULL on files written before: those are read).
ALTER TABLE lake_files ADD COLUMN min_arrival TIMESTAMP;
ALTER TABLE lake_files ADD COLUMN max_arrival TIMESTAMP;
