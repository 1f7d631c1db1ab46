-- One row per answered question of the organization's people's (Human)
-- evaluations, with the evaluation's conversation, agent, analyst, status
-- and scores. The Auto evaluations' rows are added by the export job
-- (their answers are read through their forms).
SELECT e.id AS evaluation_id, e.number AS evaluation_number, e.org_id, e.form_id, f.name AS form_name,
       e.conversation_id, e.agent_id, e.analyst_id, e.source, e.status, e.score AS evaluation_score, e.call_summary,
       e.assigned_on, e.submitted_on, e.modified_on,
       a.module_id, a.module_name, a.question_id, a.question_text, a.category, a.weight,
       a.tag_values, a.fill_in, a.note, a.weighted_score,
       NULL AS auto_tag_values, NULL AS reviewed_by, NULL AS reviewed_on
FROM evaluations e
JOIN evaluation_forms f ON f.id = e.form_id
JOIN evaluation_answers a ON a.evaluation_id = e.id
WHERE e.org_id = $org AND e.source = 'Human'
ORDER BY e.number, a.module_id, a.question_id
