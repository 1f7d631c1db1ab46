-- Organization data (CONTRACT §9): roles, users, the hierarchy and agents.
-- Every table carries org_id and every query filters on it. Case-insensitive
-- unique names keep a lower-cased *_key column beside the value as given.
-- Lists (permissions, contacts, osms) are JSON arrays of strings.

CREATE TABLE roles (
    org_id       VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    is_active    BOOLEAN NOT NULL DEFAULT true,
    permissions  VARCHAR NOT NULL DEFAULT '[]',
    PRIMARY KEY (org_id, name)
);

CREATE TABLE users (
    id                       VARCHAR PRIMARY KEY,
    org_id                   VARCHAR NOT NULL,
    user_name                VARCHAR NOT NULL,
    user_name_key            VARCHAR NOT NULL,
    first_name               VARCHAR NOT NULL,
    last_name                VARCHAR NOT NULL,
    email                    VARCHAR NOT NULL,
    email_key                VARCHAR NOT NULL,
    phone_number             VARCHAR,
    email_confirmed          BOOLEAN NOT NULL DEFAULT false,
    disabled                 BOOLEAN NOT NULL DEFAULT false,
    role_name                VARCHAR NOT NULL,
    saml_provider_user_code  VARCHAR,
    last_login               TIMESTAMP,
    created_on               TIMESTAMP NOT NULL,
    modified_on              TIMESTAMP NOT NULL,
    UNIQUE (org_id, user_name_key),
    UNIQUE (org_id, email_key)
);

-- Hierarchy nodes. Contacts are lists of user ids of the organization.
CREATE TABLE hierarchy_nodes (
    id                       VARCHAR PRIMARY KEY,
    org_id                   VARCHAR NOT NULL,
    parent_id                VARCHAR,
    name                     VARCHAR NOT NULL,
    category                 VARCHAR,
    sub_category             VARCHAR,
    code                     VARCHAR,
    is_active                BOOLEAN NOT NULL DEFAULT true,
    administrative_contacts  VARCHAR NOT NULL DEFAULT '[]',
    escalation_contacts      VARCHAR NOT NULL DEFAULT '[]',
    manager_contacts         VARCHAR NOT NULL DEFAULT '[]',
    created_on               TIMESTAMP NOT NULL,
    modified_on              TIMESTAMP NOT NULL
);
CREATE INDEX hierarchy_nodes_org ON hierarchy_nodes (org_id);

-- Every code of a node, its main code and its extra hierarchyCodes, in one
-- namespace per organization: the primary key makes them unique.
CREATE TABLE hierarchy_codes (
    org_id      VARCHAR NOT NULL,
    code_key    VARCHAR NOT NULL,
    code        VARCHAR NOT NULL,
    node_id     VARCHAR NOT NULL,
    is_primary  BOOLEAN NOT NULL,
    position    INTEGER NOT NULL,
    PRIMARY KEY (org_id, code_key)
);
CREATE INDEX hierarchy_codes_node ON hierarchy_codes (node_id);

CREATE TABLE agents (
    id              VARCHAR PRIMARY KEY,
    org_id          VARCHAR NOT NULL,
    user_id         VARCHAR,
    manager_id      VARCHAR,
    first_name      VARCHAR NOT NULL,
    last_name       VARCHAR NOT NULL,
    agent_email     VARCHAR NOT NULL,
    agent_code      VARCHAR,
    agent_code_key  VARCHAR,
    is_active       BOOLEAN NOT NULL DEFAULT true,
    start_date      TIMESTAMP,
    osms            VARCHAR NOT NULL DEFAULT '[]',
    created_on      TIMESTAMP NOT NULL,
    modified_on     TIMESTAMP NOT NULL,
    UNIQUE (org_id, agent_code_key)
);
CREATE INDEX agents_org ON agents (org_id);
