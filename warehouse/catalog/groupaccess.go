package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// GroupMapping is what membership of a group means in an organization: a
// role, hierarchy access, or both. It names the group by display name, so
// an operator can map a group before the identity provider pushes it.
//
// A member of mapped groups gets the role of the group whose role has the
// most permissions (by name on a tie) and, on each node, the highest
// access level and every media permission its groups grant there; a grant
// given by hand on a node wins over the groups' there. A user who leaves
// the last group that gave a role goes back to the default role, and
// loses the access its groups gave.
type GroupMapping struct {
	Group      string        `json:"group"`
	RoleName   string        `json:"roleName,omitempty"`
	Access     []GroupAccess `json:"access"`
	ModifiedOn time.Time     `json:"modifiedOn"`
}

// GroupAccess is hierarchy access a group gives on a node (and below it,
// as any grant).
type GroupAccess struct {
	NodeID      string   `json:"nodeId"`
	AccessLevel string   `json:"accessLevel"`
	Permissions []string `json:"permissions"`
}

// GroupMappings lists an organization's group mappings by group name.
func (c *PeopleStore) GroupMappings(ctx context.Context, orgID string) ([]GroupMapping, error) {
	return queryAll(ctx, c.db, scanMapping, `SELECT display_name, role_name, access, modified_on FROM group_mappings
		WHERE org_id = ? ORDER BY display_name_key`, orgID)
}

func scanMapping(s scanner) (GroupMapping, error) {
	var m GroupMapping
	var role sql.NullString
	var access rawJSON
	if err := s.Scan(&m.Group, &role, &access, &m.ModifiedOn); err != nil {
		return m, err
	}
	m.RoleName, m.ModifiedOn = role.String, m.ModifiedOn.UTC()
	return m, json.Unmarshal(access, &m.Access)
}

// SetGroupMapping sets what membership of a group means; the group's
// members, if it was pushed, get it at once.
func (c *PeopleStore) SetGroupMapping(ctx context.Context, orgID string, m GroupMapping) (GroupMapping, error) {
	m.Group = strings.TrimSpace(m.Group)
	if m.Access == nil {
		m.Access = []GroupAccess{}
	}
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := checkMapping(ctx, tx, orgID, m); err != nil {
			return err
		}
		access, err := json.Marshal(m.Access)
		if err != nil {
			return err
		}
		var role *string
		if m.RoleName != "" {
			role = &m.RoleName
		}
		key := strings.ToLower(m.Group)
		if _, err := tx.ExecContext(ctx, `DELETE FROM group_mappings WHERE org_id = ? AND display_name_key = ?`, orgID, key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO group_mappings (org_id, display_name_key, display_name, role_name, access, modified_on)
			VALUES (?, ?, ?, ?, ?, ?)`, orgID, key, m.Group, role, string(access), now()); err != nil {
			return err
		}
		return syncGroupMembers(ctx, tx, orgID, key)
	})
	if err != nil {
		return GroupMapping{}, err
	}
	return scanMapping(c.db.QueryRowContext(ctx, `SELECT display_name, role_name, access, modified_on FROM group_mappings
		WHERE org_id = ? AND display_name_key = ?`, orgID, strings.ToLower(m.Group)))
}

// DeleteGroupMapping ends what membership of a group means; its members
// lose what it gave.
func (c *PeopleStore) DeleteGroupMapping(ctx context.Context, orgID, group string) error {
	key := strings.ToLower(strings.TrimSpace(group))
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM group_mappings WHERE org_id = ? AND display_name_key = ?`, orgID, key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return syncGroupMembers(ctx, tx, orgID, key)
	})
}

// checkMapping checks a mapping's group name, role, nodes, levels and
// media permissions.
func checkMapping(ctx context.Context, tx *sql.Tx, orgID string, m GroupMapping) error {
	if m.Group == "" {
		return fieldErr("group", ErrInvalid, "A group mapping needs the group's display name.")
	}
	if m.RoleName == "" && len(m.Access) == 0 {
		return fieldErr("group", ErrInvalid, "A group mapping gives a role, hierarchy access or both; this one gives neither.")
	}
	if m.RoleName != "" {
		ok, err := roleExists(ctx, tx, orgID, m.RoleName)
		if err != nil {
			return err
		}
		if !ok {
			return fieldErr("roleName", ErrInvalid, "No role of the organization has the name '"+m.RoleName+"'; see GET /Roles/All.")
		}
	}
	for i, a := range m.Access {
		field := fmt.Sprintf("access[%d]", i)
		if err := exists(ctx, tx, `SELECT 1 FROM hierarchy_nodes WHERE org_id = ? AND id = ?`, orgID, a.NodeID); err != nil {
			if errors.Is(err, ErrNotFound) {
				return fieldErr(field+".nodeId", ErrInvalid, "No hierarchy node of the organization has the id '"+a.NodeID+"'.")
			}
			return err
		}
		if !slices.Contains(AccessLevels, a.AccessLevel) {
			return fieldErr(field+".accessLevel", ErrInvalid, "The access level is one of "+strings.Join(AccessLevels, ", ")+".")
		}
		if len(a.Permissions) == 0 {
			return fieldErr(field+".permissions", ErrInvalid, "Access names the media it grants: "+strings.Join(MediaPermissions, ", ")+".")
		}
		for _, p := range a.Permissions {
			if !slices.Contains(MediaPermissions, p) {
				return fieldErr(field+".permissions", ErrInvalid, "'"+p+"' is not a media permission; they are "+strings.Join(MediaPermissions, ", ")+".")
			}
		}
	}
	return nil
}

// syncGroupMembers gives the members of the group of a display name what
// their groups now grant.
func syncGroupMembers(ctx context.Context, tx *sql.Tx, orgID, displayNameKey string) error {
	members, err := queryStrings(ctx, tx, `SELECT m.user_id FROM user_group_members m JOIN user_groups g ON g.org_id = m.org_id AND g.id = m.group_id
		WHERE g.org_id = ? AND g.display_name_key = ?`, orgID, displayNameKey)
	if err != nil {
		return err
	}
	return syncGroupAccess(ctx, tx, orgID, members)
}

// syncGroupAccess gives each user the role and hierarchy access its
// groups' mappings grant (GroupMapping says how several combine).
func syncGroupAccess(ctx context.Context, tx *sql.Tx, orgID string, userIDs []string) error {
	if len(userIDs) == 0 {
		return nil
	}
	weight, err := rolePermissionCounts(ctx, tx, orgID)
	if err != nil {
		return err
	}
	for id := range setOf(userIDs) {
		mappings, err := queryAll(ctx, tx, scanMapping, `SELECT gm.display_name, gm.role_name, gm.access, gm.modified_on
			FROM group_mappings gm
			JOIN user_groups g ON g.org_id = gm.org_id AND g.display_name_key = gm.display_name_key
			JOIN user_group_members m ON m.org_id = g.org_id AND m.group_id = g.id
			WHERE gm.org_id = ? AND m.user_id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if err := syncRole(ctx, tx, orgID, id, mappings, weight); err != nil {
			return err
		}
		if err := syncGrants(ctx, tx, orgID, id, mappings); err != nil {
			return err
		}
	}
	return nil
}

// rolePermissionCounts are the organization's active roles with how many
// permissions each has.
func rolePermissionCounts(ctx context.Context, tx *sql.Tx, orgID string) (map[string]int, error) {
	type role struct {
		name  string
		perms strList
	}
	roles, err := queryAll(ctx, tx, func(s scanner) (role, error) {
		var r role
		return r, s.Scan(&r.name, &r.perms)
	}, `SELECT name, permissions FROM roles WHERE org_id = ? AND is_active`, orgID)
	out := map[string]int{}
	for _, r := range roles {
		out[r.name] = len(r.perms)
	}
	return out, err
}

// syncRole sets the role the user's groups give, or the default role when
// they give none and the current one came from groups.
func syncRole(ctx context.Context, tx *sql.Tx, orgID, userID string, mappings []GroupMapping, weight map[string]int) error {
	var current string
	var fromGroups bool
	err := tx.QueryRowContext(ctx, `SELECT role_name, role_from_groups FROM users WHERE org_id = ? AND id = ?`, orgID, userID).
		Scan(&current, &fromGroups)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // deleted with its memberships
	}
	if err != nil {
		return err
	}
	best := ""
	for _, m := range mappings {
		w, active := weight[m.RoleName]
		if !active {
			continue
		}
		if best == "" || w > weight[best] || (w == weight[best] && m.RoleName < best) {
			best = m.RoleName
		}
	}
	switch {
	case best != "" && (best != current || !fromGroups):
		_, err = tx.ExecContext(ctx, `UPDATE users SET role_name = ?, role_from_groups = true, modified_on = ? WHERE org_id = ? AND id = ?`,
			best, now(), orgID, userID)
	case best == "" && fromGroups:
		_, err = tx.ExecContext(ctx, `UPDATE users SET role_name = ?, role_from_groups = false, modified_on = ? WHERE org_id = ? AND id = ?`,
			DefaultRole, now(), orgID, userID)
	}
	return err
}

// syncGrants replaces the user's grants from groups with those its groups
// give now, on every node without a grant given by hand.
func syncGrants(ctx context.Context, tx *sql.Tx, orgID, userID string, mappings []GroupMapping) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_hierarchy WHERE org_id = ? AND user_id = ? AND from_groups`, orgID, userID); err != nil {
		return err
	}
	byHand, err := queryStrings(ctx, tx, `SELECT node_id FROM user_hierarchy WHERE org_id = ? AND user_id = ?`, orgID, userID)
	if err != nil {
		return err
	}
	merged := map[string]GroupAccess{}
	for _, m := range mappings {
		for _, a := range m.Access {
			if slices.Contains(byHand, a.NodeID) {
				continue
			}
			cur, seen := merged[a.NodeID]
			if !seen || slices.Index(AccessLevels, a.AccessLevel) > slices.Index(AccessLevels, cur.AccessLevel) {
				cur.NodeID, cur.AccessLevel = a.NodeID, a.AccessLevel
			}
			for _, p := range a.Permissions {
				if !slices.Contains(cur.Permissions, p) {
					cur.Permissions = append(cur.Permissions, p)
				}
			}
			merged[a.NodeID] = cur
		}
	}
	for _, a := range merged {
		slices.SortFunc(a.Permissions, func(x, y string) int {
			return slices.Index(MediaPermissions, x) - slices.Index(MediaPermissions, y)
		})
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_hierarchy (org_id, user_id, node_id, access_level, permissions, modified_on, from_groups)
			VALUES (?, ?, ?, ?, ?, ?, true)`, orgID, userID, a.NodeID, a.AccessLevel, strList(a.Permissions), now()); err != nil {
			return err
		}
	}
	return nil
}
