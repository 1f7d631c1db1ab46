-- The organization's agents, joined to conversations by agent_id or agent_code.
SELECT id AS agent_id, org_id, user_id, manager_id, first_name, last_name, agent_email,
       agent_code, is_active, start_date, osms, created_on, modified_on
FROM agents
WHERE org_id = $org
ORDER BY agent_id
