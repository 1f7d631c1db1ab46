-- One row per answered question of the organization's evaluations, with
-- the evaluation's conversation, agent, analyst, status and scores.
SELECT e.id AS evaluation_id, e.number AS evaluation_number, e.org_id, e.form_id, f.name AS form_name,
       e.conversation_id, e.agent_id, e.analyst_id, e.status, e.score AS evaluation_score, e.call_summary,
       e.assigned_on, e.submitted_on, e.modified_on,
       a.module_id, a.module_name, a.question_id, a.question_text, a.category, a.weight,
       a.tag_values, a.fill_in, a.note, a.weighted_score
FROM evaluations e
JOIN evaluation_forms f ON f.id = e.form_id
JOIN evaluation_answers a ON a.evaluation_id = e.id
WHERE e.org_id = $org
ORDER BY e.number, a.module_id, a.question_id
