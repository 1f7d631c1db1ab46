-- Automated QA. An evaluation is a person's (Human) or answered by
-- classifiers (Auto): a form marked autoScore gets one Auto evaluation,
-- status AutoScored, per processed conversation, replaced when the
-- conversation is processed again. An answer of an Auto evaluation keeps
-- what the classifiers answered (auto_tag_ids) beside what a reviewer who
-- confirmed or overrode it chose (tag_ids), with who and when: the
-- agreement between the two is what says which bindings to trust.
ALTER TABLE evaluations ADD COLUMN source VARCHAR NOT NULL DEFAULT 'Human';
CREATE UNIQUE INDEX evaluations_auto ON evaluations (org_id, conversation_id, form_id) WHERE source = 'Auto';

ALTER TABLE evaluation_answers ADD COLUMN auto_tag_ids VARCHAR;  -- JSON ["…"]; NULL for a person's answer
ALTER TABLE evaluation_answers ADD COLUMN reviewed_by VARCHAR;   -- the user who confirmed or overrode an auto answer
ALTER TABLE evaluation_answers ADD COLUMN reviewed_on TIMESTAMP;
