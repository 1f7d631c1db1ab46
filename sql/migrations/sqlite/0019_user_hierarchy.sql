-- A user's access on hierarchy nodes (the /UserHierarchy operations): an
-- access level and the media the user may read there. A grant holds on its
-- node and every node below it, up to a node with its own grant.
CREATE TABLE user_hierarchy (
    org_id        VARCHAR NOT NULL,
    user_id       VARCHAR NOT NULL,
    node_id       VARCHAR NOT NULL,
    access_level  VARCHAR NOT NULL,  -- View | Edit | Manage
    permissions   VARCHAR NOT NULL,  -- JSON ["Audio","Chat",…]
    modified_on   TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, user_id, node_id)
);
