-- The scopes an API client may request: acxapi (the API), scim
-- (provisioning the organization's users through /scim/v2).
ALTER TABLE api_clients ADD COLUMN scopes VARCHAR NOT NULL DEFAULT 'acxapi';
