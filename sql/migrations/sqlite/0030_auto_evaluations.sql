-- Automated QA. An evaluation is a person's (Human) or answered by
-- classifiers (Auto): a form marked autoScore gets one Auto evaluation,
-- status AutoScored, per processed conversation, replaced when the
-- conversation is processed again. Ingest writes one for every
-- conversation, so an Auto evaluation is one short row: auto_answers holds
-- the results its answers come from, a character a classifier the form's
-- questions are bound to, in the form's order ('1' true, '0' false, '-'
-- no result: a form never changes once made; pipeline/quality reads it),
-- so that a reclassification changes one character. A reviewer's
-- confirmation or override of one is an evaluation_answers row that keeps
-- what the classifiers answered (auto_tag_ids) beside the reviewer's
-- choice (tag_ids), with who and when: the agreement between the two says
-- which bindings to trust.
ALTER TABLE evaluations ADD COLUMN source VARCHAR NOT NULL DEFAULT 'Human';
ALTER TABLE evaluations ADD COLUMN auto_answers VARCHAR;

ALTER TABLE evaluation_answers ADD COLUMN auto_tag_ids VARCHAR;  -- JSON ["…"]; NULL for a person's answer
ALTER TABLE evaluation_answers ADD COLUMN reviewed_by VARCHAR;   -- who confirmed or overrode the auto answer
ALTER TABLE evaluation_answers ADD COLUMN reviewed_on TIMESTAMP;

-- A conversation's evaluations, found by it; the source and score beside,
-- so that the dashboards' QA score of every conversation reads no row.
DROP INDEX evaluations_conversation;
CREATE INDEX evaluations_conversation ON evaluations (org_id, conversation_id, source, score);
