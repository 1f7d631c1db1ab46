-- An archive's chats are looked up by (org_id, upload_id) on every run
-- that reads the archive. With upload_id alone indexed, SQLite's planner
-- (without statistics) preferred an org_id index and read every one of the
-- organization's interactions per archive; an index on both columns is the
-- plain choice for both engines.
DROP INDEX interactions_upload;
CREATE INDEX interactions_upload ON interactions (upload_id, org_id);
