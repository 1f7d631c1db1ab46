-- The organization itself: its id and name.
SELECT id AS org_id, name, created_on
FROM organizations
WHERE id = $org
