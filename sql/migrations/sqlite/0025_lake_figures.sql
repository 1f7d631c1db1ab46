-- Dashboards' figures of sets of lake files, kept so that a day's figures
-- are read from the lake once, by any process, and not again after a
-- restart. A row is derived from the files its signature names (their
-- paths, which are never reused), so it is never stale, only unused once
-- those files are swapped out; keeping a day's figures drops its unused
-- rows.
CREATE TABLE lake_figures (
    org_id      VARCHAR NOT NULL,
    part_date   DATE NOT NULL,
    signature   VARCHAR NOT NULL,  -- SHA-256 of the files' sorted paths and the figures' format
    figures     VARCHAR NOT NULL,  -- JSON, read by warehouse/results
    created_on  TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, part_date, signature)
);
