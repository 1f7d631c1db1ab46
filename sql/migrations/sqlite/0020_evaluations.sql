-- Quality evaluations: forms (modules → questions → answer tags, as JSON),
-- evaluations of a conversation by an analyst for an agent, numbered per
-- organization (the vendor's evaluationNumber, its cursor), and their
-- answers, one row per question, with the form's words for it kept beside
-- the ids (what the export job snapshots for analysts, in any engine).
CREATE TABLE evaluation_forms (
    id           VARCHAR PRIMARY KEY,
    org_id       VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    description  VARCHAR NOT NULL,
    definition   VARCHAR NOT NULL,  -- JSON {modules, customerTypes}
    is_active    BOOLEAN NOT NULL,
    created_on   TIMESTAMP NOT NULL,
    modified_on  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX evaluation_forms_name ON evaluation_forms (org_id, name);

CREATE TABLE evaluations (
    id               VARCHAR PRIMARY KEY,
    org_id           VARCHAR NOT NULL,
    number           INTEGER NOT NULL,
    form_id          VARCHAR NOT NULL,
    conversation_id  VARCHAR NOT NULL,
    agent_id         VARCHAR,
    analyst_id       VARCHAR NOT NULL,  -- a user of the organization
    status           VARCHAR NOT NULL,  -- NotStarted | InProgress | Completed | NoValue | PendingReview | ReviewComplete
    call_summary     VARCHAR,
    customer_type_id VARCHAR,
    score            DOUBLE PRECISION,  -- the form's weighted percentage, once answered
    assigned_on      TIMESTAMP NOT NULL,
    submitted_on     TIMESTAMP,
    modified_on      TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX evaluations_number ON evaluations (org_id, number);
CREATE INDEX evaluations_conversation ON evaluations (org_id, conversation_id);

CREATE TABLE evaluation_answers (
    evaluation_id   VARCHAR NOT NULL,
    org_id          VARCHAR NOT NULL,
    question_id     VARCHAR NOT NULL,
    answer_id       VARCHAR NOT NULL,
    module_id       VARCHAR NOT NULL,
    module_name     VARCHAR NOT NULL,
    question_text   VARCHAR NOT NULL,
    category        VARCHAR NOT NULL,
    weight          DOUBLE PRECISION NOT NULL,
    tag_ids         VARCHAR NOT NULL,   -- JSON ["…"]
    tag_values      VARCHAR NOT NULL,   -- JSON ["Yes"]: the chosen tags' values
    fill_in         VARCHAR,
    note            VARCHAR,
    weighted_score  DOUBLE PRECISION,   -- NULL for an answer that is not scored
    PRIMARY KEY (evaluation_id, question_id)
);
