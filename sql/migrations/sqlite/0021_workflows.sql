-- Review workflows: templates (levels with their assignees, a boss module
-- of questions the last level answers, and whether QA sampling starts one
-- for each sampled conversation), and workflows started from them over a
-- conversation and, optionally, one of its evaluations.
CREATE TABLE workflow_templates (
    id                VARCHAR PRIMARY KEY,
    org_id            VARCHAR NOT NULL,
    name              VARCHAR NOT NULL,
    workflow_type     VARCHAR NOT NULL,
    definition        VARCHAR NOT NULL,  -- JSON {levels:[{assignees}], bossModule:{id,name,questions:[{questionText,answers}]}}
    start_on_sampled  BOOLEAN NOT NULL,
    created_on        TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX workflow_templates_name ON workflow_templates (org_id, name);

CREATE TABLE workflows (
    id               VARCHAR PRIMARY KEY,  -- UUIDv7: id order is start order (GET /Workflows' cursor)
    org_id           VARCHAR NOT NULL,
    template_id      VARCHAR NOT NULL,
    conversation_id  VARCHAR NOT NULL,
    evaluation_id    VARCHAR,
    status           VARCHAR NOT NULL,      -- Open | Closed
    current_level    INTEGER NOT NULL,      -- the level awaiting completion (0 first)
    progress         VARCHAR NOT NULL,      -- JSON {levels:[{completer, outcome, notes, completedOn}], bossAnswers, closed}
    created_on       TIMESTAMP NOT NULL,
    modified_on      TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX workflows_once ON workflows (org_id, template_id, conversation_id);
