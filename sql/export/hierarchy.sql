-- The organization's hierarchy, one row per node, with its depth (1 for a
-- root), the names from the root down (path) and every code it answers to.
WITH RECURSIVE tree AS (
    SELECT id, 1 AS depth, name AS path, json_array(id) AS ancestor_ids
    FROM hierarchy_nodes
    WHERE org_id = $org AND parent_id IS NULL
    UNION ALL
    SELECT n.id, t.depth + 1, t.path || ' / ' || n.name, json_insert(t.ancestor_ids, '$[#]', n.id)
    FROM hierarchy_nodes n JOIN tree t ON n.parent_id = t.id
    WHERE n.org_id = $org
)
SELECT n.id AS node_id, n.org_id, n.parent_id, n.name, n.code, n.category, n.sub_category,
       n.is_active, t.depth, t.path, t.ancestor_ids,
       (SELECT json_group_array(code) FROM (SELECT c.code FROM hierarchy_codes c WHERE c.node_id = n.id ORDER BY c.position)) AS codes,
       n.created_on, n.modified_on
FROM hierarchy_nodes n JOIN tree t ON t.id = n.id
ORDER BY node_id
