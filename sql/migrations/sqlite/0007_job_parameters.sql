-- Jobs started for one organization with parameters (a reclassification
-- of a classifier over a date range): whose run it is, and what it was
-- asked to do. Their counts are updated while they run (progress).
ALTER TABLE job_runs ADD COLUMN org_id VARCHAR;
ALTER TABLE job_runs ADD COLUMN params VARCHAR;
