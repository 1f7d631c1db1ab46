-- SCIM provisioning as identity providers use it (Okta, Microsoft Entra ID).
--
-- A provisioned user needs only a userName (RFC 7643), so an e-mail address
-- may be absent: email_key becomes NULL for those users, and SQLite can
-- drop a NOT NULL only by rebuilding the table (PostgreSQL's form of this
-- file alters the column). scim_attributes keeps, as JSON, the SCIM
-- attributes Earshot has no column for (displayName, title, addresses, the
-- enterprise extension's department, manager …) so that they are returned
-- as they were sent. role_from_groups says the user's role was given by a
-- group (group_mappings) and goes back to the default when the user
-- leaves its last such group.
CREATE TABLE users_rebuilt (
    id                       VARCHAR PRIMARY KEY,
    org_id                   VARCHAR NOT NULL,
    user_name                VARCHAR NOT NULL,
    user_name_key            VARCHAR NOT NULL,
    first_name               VARCHAR NOT NULL,
    last_name                VARCHAR NOT NULL,
    email                    VARCHAR NOT NULL,
    email_key                VARCHAR,
    phone_number             VARCHAR,
    email_confirmed          BOOLEAN NOT NULL DEFAULT false,
    disabled                 BOOLEAN NOT NULL DEFAULT false,
    role_name                VARCHAR NOT NULL,
    saml_provider_user_code  VARCHAR,
    last_login               TIMESTAMP,
    created_on               TIMESTAMP NOT NULL,
    modified_on              TIMESTAMP NOT NULL,
    password_hash            VARCHAR,
    failed_sign_ins          INTEGER NOT NULL DEFAULT 0,
    locked_until             TIMESTAMP,
    scim_attributes          VARCHAR NOT NULL DEFAULT '{}',
    role_from_groups         BOOLEAN NOT NULL DEFAULT false,
    UNIQUE (org_id, user_name_key),
    UNIQUE (org_id, email_key)
);
INSERT INTO users_rebuilt (id, org_id, user_name, user_name_key, first_name, last_name, email, email_key, phone_number,
    email_confirmed, disabled, role_name, saml_provider_user_code, last_login, created_on, modified_on,
    password_hash, failed_sign_ins, locked_until)
SELECT id, org_id, user_name, user_name_key, first_name, last_name, email, email_key, phone_number,
    email_confirmed, disabled, role_name, saml_provider_user_code, last_login, created_on, modified_on,
    password_hash, failed_sign_ins, locked_until FROM users;
DROP TABLE users;
ALTER TABLE users_rebuilt RENAME TO users;

-- A hierarchy grant a group gave (group_mappings), recomputed whenever the
-- user's groups or their mappings change; a grant given by hand
-- (/UserHierarchy) is never touched by groups and wins on its node.
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
