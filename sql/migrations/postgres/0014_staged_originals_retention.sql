-- PostgreSQL's form of sqlite/0014: keep_originals is a boolean (SQLite's
-- file declares it INTEGER, which SQLite reads as a boolean anyway).
ALTER TABLE org_privacy_settings ADD COLUMN keep_originals BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE staged_deletions (
    interaction_id TEXT PRIMARY KEY,
    staged_key     TEXT NOT NULL
);
