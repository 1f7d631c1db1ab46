-- A conversation's lake row keeps the interaction date it was processed
-- with; PATCH /Metadata changes the catalog's. lake_interaction_on is the
-- date the lake's current row has (its interaction date, else its
-- arrival) while the two differ, NULL otherwise: DateReference=
-- InteractionDate pages find a moved conversation at its new date from
-- the catalog, and their counts leave it out of its old one.
ALTER TABLE interactions ADD COLUMN lake_interaction_on TIMESTAMP;

CREATE INDEX interactions_org_moved ON interactions (org_id, id) WHERE lake_interaction_on IS NOT NULL;
