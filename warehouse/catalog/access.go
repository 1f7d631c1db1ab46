package catalog

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"
)

// Access levels and media permissions of a user on hierarchy nodes (the
// vendor's /UserHierarchy operations).
var (
	AccessLevels      = []string{"View", "Edit", "Manage"}
	MediaPermissions  = []string{"Audio", "Email", "Chat", "Video", "Live"}
	permissionToMedia = map[string][]string{
		"Audio": {MediaAudio},
		"Chat":  {MediaChat, MediaProcessedChat},
		// Email, Video and Live: media Earshot never stores.
	}
)

// Grant is a user's own access on one hierarchy node. It holds on the node
// and every node below it, up to a node with the user's own grant: the
// nearest grant above a node decides (so a team can be given less than
// its region).
type Grant struct {
	NodeID      string
	AccessLevel string
	Permissions []string
	ModifiedOn  time.Time
}

// Grants lists a user's own grants, by node id.
func (c *PeopleStore) Grants(ctx context.Context, orgID, userID string) ([]Grant, error) {
	return queryAll(ctx, c.db, func(s scanner) (Grant, error) {
		var g Grant
		err := s.Scan(&g.NodeID, &g.AccessLevel, (*strList)(&g.Permissions), &g.ModifiedOn)
		g.ModifiedOn = g.ModifiedOn.UTC()
		return g, err
	}, `SELECT node_id, access_level, permissions, modified_on FROM user_hierarchy WHERE org_id = ? AND user_id = ? ORDER BY node_id`,
		orgID, userID)
}

// SetGrant gives a user its own grant on a node, in place of any its
// groups give there; no permissions removes the user's grant there (the
// node then follows what its groups give there, else the nearest grant
// above it). The caller checks the level and permission names.
func (c *PeopleStore) SetGrant(ctx context.Context, orgID, userID, nodeID, level string, permissions []string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, `SELECT 1 FROM users WHERE org_id = ? AND id = ?`, orgID, userID); err != nil {
			return err
		}
		if err := exists(ctx, tx, `SELECT 1 FROM hierarchy_nodes WHERE org_id = ? AND id = ?`, orgID, nodeID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_hierarchy WHERE org_id = ? AND user_id = ? AND node_id = ?`, orgID, userID, nodeID); err != nil {
			return err
		}
		if len(permissions) == 0 {
			return syncGroupAccess(ctx, tx, orgID, []string{userID}) // a group's grant there comes back
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO user_hierarchy (org_id, user_id, node_id, access_level, permissions, modified_on)
			VALUES (?, ?, ?, ?, ?, ?)`, orgID, userID, nodeID, level, strList(permissions), now())
		return err
	})
}

// exists is ErrNotFound when query finds no row.
func exists(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	var one int
	err := tx.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// Effective is the grant that holds on a node: its own, else the nearest
// one above it; ok is false when none does.
func Effective(tree *Tree, grants []Grant, nodeID string) (Grant, bool) {
	return effective(tree, byNode(grants), nodeID)
}

func byNode(grants []Grant) map[string]Grant {
	own := make(map[string]Grant, len(grants))
	for _, g := range grants {
		own[g.NodeID] = g
	}
	return own
}

func effective(tree *Tree, own map[string]Grant, nodeID string) (Grant, bool) {
	for id := nodeID; id != ""; {
		if g, ok := own[id]; ok {
			return g, true
		}
		n, ok := tree.Node(id)
		if !ok || n.ParentID == nil {
			break
		}
		id = *n.ParentID
	}
	return Grant{}, false
}

// Scope is what a user may read: for each media type, the hierarchy nodes
// whose conversations of that type are visible. A nil Scope is the whole
// organization (an API client, or a user whose role administers the
// organization); a conversation outside every node is visible only then.
type Scope map[string][]string

// ScopeOf is the scope of a user's grants over the tree.
func ScopeOf(tree *Tree, grants []Grant) Scope {
	scope := Scope{}
	for _, media := range []string{MediaAudio, MediaChat, MediaProcessedChat} {
		scope[media] = []string{}
	}
	own := byNode(grants)
	for id := range tree.nodes {
		g, ok := effective(tree, own, id)
		if !ok {
			continue
		}
		for _, p := range g.Permissions {
			for _, media := range permissionToMedia[p] {
				scope[media] = append(scope[media], id)
			}
		}
	}
	for _, nodes := range scope {
		slices.Sort(nodes)
	}
	return scope
}

// Allows tells whether a conversation of a media type on a node is
// visible.
func (s Scope) Allows(mediaType string, nodeID *string) bool {
	if s == nil {
		return true
	}
	if nodeID == nil {
		return false
	}
	_, found := slices.BinarySearch(s[mediaType], *nodeID)
	return found
}

// where is the scope as a catalog condition on a media type and a node
// column.
func (s Scope) where(mediaColumn, nodeColumn string) (string, []any) {
	var conds []string
	var args []any
	for _, media := range slices.Sorted(maps.Keys(s)) {
		if nodes := s[media]; len(nodes) > 0 {
			conds = append(conds, "("+mediaColumn+" = ? AND "+anyOf(nodeColumn)+")")
			args = append(args, media, list(nodes))
		}
	}
	if len(conds) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// Nodes is every node on which something is visible (nil for the whole
// organization).
func (s Scope) Nodes() []string {
	if s == nil {
		return nil
	}
	all := []string{} // nothing visible is no node, not every node
	for _, nodes := range s {
		all = append(all, nodes...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// Narrow is nodes (nil: all) cut to the scope's: the node filter a query
// reads with, which the scope's per media check then finishes.
func (s Scope) Narrow(nodes []string) []string {
	if s == nil {
		return nodes
	}
	visible := s.Nodes()
	if nodes == nil {
		return visible
	}
	out := []string{}
	for _, n := range nodes {
		if _, ok := slices.BinarySearch(visible, n); ok {
			out = append(out, n)
		}
	}
	return out
}
