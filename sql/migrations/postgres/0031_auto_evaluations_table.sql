-- PostgreSQL's form of sqlite/0031: a plain table (SQLite's WITHOUT ROWID
-- keeps the row in its key) and to_hex for the id's number.
-- Auto evaluations get a table of their own. Ingest writes one for every
-- conversation of an auto-scored form, inside the one serial commit, and
-- a catalog row costs about what its bytes do (ADR 0012): the row in
-- evaluations, with its own id, times, status and three indexes, was most
-- of what automated QA added to ingest. Here a row holds only what is its
-- own: its place in the organization's sequence of evaluation numbers
-- (shared with people's evaluations, in the key), its form, conversation,
-- score and the classifiers' results. Its id is made from the
-- organization and number (catalog.AutoEvaluationID); its agent is its
-- conversation's; modified_on stays NULL until a review or a rescoring.
CREATE TABLE auto_evaluations (
    org_id           VARCHAR NOT NULL,
    number           INTEGER NOT NULL,
    form_id          VARCHAR NOT NULL,
    conversation_id  VARCHAR NOT NULL,
    score            DOUBLE PRECISION,
    auto_answers     VARCHAR NOT NULL,
    scored_on        TIMESTAMP NOT NULL,
    modified_on      TIMESTAMP,
    PRIMARY KEY (org_id, number)
);
-- A conversation's Auto evaluations (replaced when it is processed again;
-- the dashboards' scores of every conversation): the score beside, so
-- that they read no row.
CREATE INDEX auto_evaluations_conversation ON auto_evaluations (conversation_id, score);

INSERT INTO auto_evaluations (org_id, number, form_id, conversation_id, score, auto_answers, scored_on, modified_on)
    SELECT org_id, number, form_id, conversation_id, score, coalesce(auto_answers, ''), assigned_on,
           CASE WHEN modified_on <> assigned_on THEN modified_on END
    FROM evaluations WHERE source = 'Auto';
-- Reviews of Auto evaluations follow them to their new ids.
UPDATE evaluation_answers SET evaluation_id = (
    SELECT substr(e.org_id, 25, 8) || '-' || substr(e.org_id, 33, 4) || '-8000-8000-' || lpad(to_hex(e.number), 12, '0')
    FROM evaluations e WHERE e.org_id = evaluation_answers.org_id AND e.id = evaluation_answers.evaluation_id)
WHERE evaluation_id IN (SELECT id FROM evaluations WHERE source = 'Auto');
DELETE FROM evaluations WHERE source = 'Auto';
