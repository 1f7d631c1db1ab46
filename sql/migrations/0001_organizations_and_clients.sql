-- Organizations: the tenancy boundary. Every later row carries org_id.
CREATE TABLE organizations (
    id          VARCHAR PRIMARY KEY,
    name        VARCHAR NOT NULL UNIQUE,
    created_on  TIMESTAMP NOT NULL
);

-- API clients for the OAuth 2.0 client-credentials grant. Secrets are stored
-- as bcrypt hashes only. No FOREIGN KEY to organizations: DuckDB refuses some
-- updates of rows that are referenced, so the catalog code checks the link.
CREATE TABLE api_clients (
    id           VARCHAR PRIMARY KEY,
    org_id       VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    secret_hash  VARCHAR NOT NULL,
    disabled     BOOLEAN NOT NULL DEFAULT false,
    created_on   TIMESTAMP NOT NULL
);
CREATE INDEX api_clients_org ON api_clients (org_id);
