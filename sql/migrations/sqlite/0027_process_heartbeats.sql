-- Each process that runs jobs beats here while a run of it is running: a
-- run still "running" whose owner has not beaten for a while was
-- interrupted (its process stopped), whichever host it ran on, and no
-- live process's run is taken for one.
CREATE TABLE process_heartbeats (
    owner    VARCHAR PRIMARY KEY,  -- HOST:PID, as job runs' owner
    beat_on  TIMESTAMP NOT NULL
);
