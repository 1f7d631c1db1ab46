-- A client's tokens carry the generation they were issued under; disabling
-- the client, rotating its secret or deleting it moves on from it, and the
-- API refuses tokens of an earlier generation (api/auth.go).
ALTER TABLE api_clients ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
