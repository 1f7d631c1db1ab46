-- The organization's classifiers as they are now (deleted ones too, with
-- deleted_on: their results stay in the lake). definition is JSON.
SELECT id AS classifier_id, org_id, name, description, classifier_type, category_name,
       reportable, groupable, is_active, version, definition, created_on, modified_on, deleted_on
FROM classifiers
WHERE org_id = $org
ORDER BY classifier_id
