-- Organizations: the tenancy boundary. Every later row carries org_id.
CREATE TABLE organizations (
    id          VARCHAR PRIMARY KEY,
    name        VARCHAR NOT NULL UNIQUE,
    created_on  TIMESTAMP NOT NULL
);

-- API clients for the OAuth 2.0 client-credentials grant. Secrets are stored
-- as bcrypt hashes only. The catalog code checks the link to the
-- organization (no FOREIGN KEY, as in the first release's schema).
CREATE TABLE api_clients (
    id           VARCHAR PRIMARY KEY,
    org_id       VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    secret_hash  VARCHAR NOT NULL,
    disabled     BOOLEAN NOT NULL DEFAULT false,
    created_on   TIMESTAMP NOT NULL
);
CREATE INDEX api_clients_org ON api_clients (org_id);
