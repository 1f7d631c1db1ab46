-- An Auto evaluation is looked up by (org_id, conversation_id): a
-- dashboard's scores join every conversation of a window to its own. With
-- conversation_id alone indexed, PostgreSQL's planner, before it has
-- statistics of freshly loaded rows, matched each conversation by ANDing
-- that index with the primary key's org_id, a read of all the
-- organization's Auto evaluations for every conversation; an index on both
-- columns is the plain choice for both engines (as 0029 for archives).
DROP INDEX auto_evaluations_conversation;
CREATE INDEX auto_evaluations_conversation ON auto_evaluations (conversation_id, org_id, score);
