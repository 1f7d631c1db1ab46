-- A page's conversations are read by organization and id range (their
-- states, their runs): without this the organization's arrival index was
-- chosen and every conversation of the organization scanned.
CREATE INDEX interactions_org_id ON interactions (org_id, id);
