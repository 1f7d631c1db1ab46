-- The organization's users. Credentials are never exported.
SELECT id AS user_id, org_id, user_name, first_name, last_name, email, phone_number,
       role_name, disabled, email_confirmed, last_login, created_on, modified_on
FROM users
WHERE org_id = $org
ORDER BY user_id
