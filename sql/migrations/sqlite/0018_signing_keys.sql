-- The API's token signing keys live in the catalog, so that every process
-- on one catalog signs and verifies with the same keys and publishes the
-- same JWKS. The newest key signs; all of them verify.
CREATE TABLE signing_keys (
    id          VARCHAR PRIMARY KEY, -- the key's RFC 7638 thumbprint
    private_key VARCHAR NOT NULL,    -- PKCS #8, PEM
    created_on  TIMESTAMP NOT NULL
);
