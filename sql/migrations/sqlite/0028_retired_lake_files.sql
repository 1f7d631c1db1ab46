-- Lake files compaction replaced: no manifest entry names them any more,
-- but a catalog backup taken before the swap still does. Compaction deletes
-- them once they are older than the backup window (--backup-window), so
-- that a backup of that age restores whole.
CREATE TABLE retired_lake_files (
    path        VARCHAR PRIMARY KEY,
    retired_on  TIMESTAMP NOT NULL
);
