-- A TextMedia upload may choose its conversation's id (CONTRACT §4). The
-- conversation still gets Earshot's own time-ordered id, which keys its
-- rows everywhere and orders every cursor by arrival; the client's id is
-- public_id, what the API shows and takes for it. It is unique in its
-- organization only: another organization's choice of the same id is
-- neither refused nor revealed.
ALTER TABLE interactions ADD COLUMN public_id TEXT;

CREATE UNIQUE INDEX interactions_org_public_id ON interactions (org_id, public_id) WHERE public_id IS NOT NULL;
CREATE INDEX interactions_org_public ON interactions (org_id, id) WHERE public_id IS NOT NULL;
