-- A scheduled job's tick (the minute its cron spec fired) is claimed by the
-- first process to insert it: with several processes on one catalog, each
-- tick runs once, not once per process.
CREATE TABLE job_ticks (
    job         VARCHAR NOT NULL,
    tick        TIMESTAMP NOT NULL,
    owner       VARCHAR NOT NULL,
    claimed_on  TIMESTAMP NOT NULL,
    PRIMARY KEY (job, tick)
);
