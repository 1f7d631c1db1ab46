-- The lake manifest, ingest leases and job runs.

-- Which run's lake rows are a conversation's current ones: every lake row
-- carries the run_id that wrote it, and readers keep the rows of the run
-- named here, so a re-run replaces a conversation's results, never doubles.
ALTER TABLE interactions ADD COLUMN lake_run_id VARCHAR;
-- Ingest leases: a worker owns a pending upload until its lease expires.
ALTER TABLE interactions ADD COLUMN lease_owner VARCHAR;
ALTER TABLE interactions ADD COLUMN lease_expires TIMESTAMP;

-- Every committed Parquet file. Readers read only files listed here.
CREATE TABLE lake_files (
    path              VARCHAR PRIMARY KEY,   -- object key, lake/TABLE/org=ORG/date=YYYY-MM-DD/part-….parquet
    table_name        VARCHAR NOT NULL,
    org_id            VARCHAR NOT NULL,
    part_date         DATE NOT NULL,         -- arrival date (UTC)
    row_count         BIGINT NOT NULL,
    byte_count        BIGINT NOT NULL,
    min_id            VARCHAR NOT NULL,      -- smallest conversation id in the file
    max_id            VARCHAR NOT NULL,
    min_interaction   TIMESTAMP,             -- interaction dates, for InteractionDate pruning
    max_interaction   TIMESTAMP,
    run_id            VARCHAR NOT NULL,
    created_on        TIMESTAMP NOT NULL
);
CREATE INDEX lake_files_partition ON lake_files (org_id, table_name, part_date);

CREATE TABLE job_runs (
    id          VARCHAR PRIMARY KEY,         -- UUIDv7
    job         VARCHAR NOT NULL,
    owner       VARCHAR NOT NULL,
    started_on  TIMESTAMP NOT NULL,
    ended_on    TIMESTAMP,
    status      VARCHAR NOT NULL,            -- running | succeeded | failed
    counts      VARCHAR NOT NULL,            -- JSON object of counters
    error       VARCHAR
);
