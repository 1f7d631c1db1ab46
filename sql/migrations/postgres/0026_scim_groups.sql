-- PostgreSQL's form of sqlite/0026: the e-mail key becomes nullable by
-- altering the column (SQLite rebuilds the table); the rest is the same.
ALTER TABLE users ALTER COLUMN email_key DROP NOT NULL;
ALTER TABLE users ADD COLUMN scim_attributes VARCHAR NOT NULL DEFAULT '{}';
ALTER TABLE users ADD COLUMN role_from_groups BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE user_hierarchy ADD COLUMN from_groups BOOLEAN NOT NULL DEFAULT false;

-- SCIM groups an identity provider pushed, and their members (users of the
-- same organization).
CREATE TABLE user_groups (
    id                VARCHAR PRIMARY KEY,
    org_id            VARCHAR NOT NULL,
    display_name      VARCHAR NOT NULL,
    display_name_key  VARCHAR NOT NULL,
    external_id       VARCHAR,
    created_on        TIMESTAMP NOT NULL,
    modified_on       TIMESTAMP NOT NULL,
    UNIQUE (org_id, display_name_key)
);

CREATE TABLE user_group_members (
    org_id    VARCHAR NOT NULL,
    group_id  VARCHAR NOT NULL,
    user_id   VARCHAR NOT NULL,
    PRIMARY KEY (org_id, group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members (org_id, user_id);

-- What membership of a group means in an organization, by the group's
-- display name (set by the operator, before or after the group is pushed):
-- a role and/or hierarchy access.
CREATE TABLE group_mappings (
    org_id            VARCHAR NOT NULL,
    display_name_key  VARCHAR NOT NULL,
    display_name      VARCHAR NOT NULL,
    role_name         VARCHAR,
    access            VARCHAR NOT NULL DEFAULT '[]',  -- JSON [{"nodeId","accessLevel","permissions"}]
    modified_on       TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, display_name_key)
);
