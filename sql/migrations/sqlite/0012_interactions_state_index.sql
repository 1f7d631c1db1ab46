-- A page's catalog check reads each conversation's state by organization
-- and id (warehouse/catalog/states.go, runs.go): with the state's columns in
-- the index the check is one index read, without a lookup of each table row
-- (a page filtered by hierarchy looks up its ids one by one). It replaces
-- the (org_id, id) index, of which it is an extension.
DROP INDEX interactions_org_id;
CREATE INDEX interactions_org_state ON interactions (org_id, id, status, lake_run_id, client_call_id, interaction_date);
