-- Sign-in to the console: a user's password (bcrypt, as client secrets),
-- the failures since its last sign-in and the lockout they bring, and the
-- sessions signed-in users hold (by the hash of their cookie's token,
-- with the token their forms must carry against CSRF).
ALTER TABLE users ADD COLUMN password_hash VARCHAR;
ALTER TABLE users ADD COLUMN failed_sign_ins INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN locked_until TIMESTAMP;

CREATE TABLE sessions (
    token_hash   VARCHAR PRIMARY KEY,  -- SHA-256 of the cookie's token
    org_id       VARCHAR NOT NULL,
    user_id      VARCHAR NOT NULL,
    csrf_token   VARCHAR NOT NULL,
    created_on   TIMESTAMP NOT NULL,
    expires_on   TIMESTAMP NOT NULL
);
CREATE INDEX sessions_user ON sessions (org_id, user_id);
