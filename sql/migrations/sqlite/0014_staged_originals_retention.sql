-- With personal data redacted, an upload's staged original (which holds
-- it) is deleted once the upload is processed, unless the organization
-- keeps originals. The ingest commit records what is to be deleted in the
-- same transaction that makes the upload final, and the ingest job deletes
-- it from the bucket afterwards: a crash in between leaves the record, and
-- the next run deletes it.
ALTER TABLE org_privacy_settings ADD COLUMN keep_originals INTEGER NOT NULL DEFAULT 0;

CREATE TABLE staged_deletions (
    interaction_id TEXT PRIMARY KEY,
    staged_key     TEXT NOT NULL
);
