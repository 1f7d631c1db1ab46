package catalog

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Group is a group of an organization's users, as an identity provider
// pushes it over SCIM. What membership means (a role, hierarchy access)
// is the organization's group mapping of the same display name
// (groupaccess.go).
type Group struct {
	ID          string
	OrgID       string
	DisplayName string
	ExternalID  *string
	Members     []GroupMember // by user id
	CreatedOn   time.Time
	ModifiedOn  time.Time
}

// GroupMember is a user in a group.
type GroupMember struct {
	UserID   string
	UserName string
}

// GroupInput is a group as created or replaced: its members are the ids
// of users of the organization.
type GroupInput struct {
	DisplayName string
	ExternalID  *string
	Members     []string
}

// ErrChanged: the row changed since the version the caller read.
var ErrChanged = errors.New("catalog: changed since read")

// Groups lists an organization's groups by id, with their members.
func (c *PeopleStore) Groups(ctx context.Context, orgID string) ([]Group, error) {
	return c.groupsWhere(ctx, c.db, orgID, "", nil)
}

// Group returns a group of the organization; ErrNotFound for any other id.
func (c *PeopleStore) Group(ctx context.Context, orgID, id string) (Group, error) {
	return c.group(ctx, c.db, orgID, id)
}

// UserGroups lists the groups a user is in, by id.
func (c *PeopleStore) UserGroups(ctx context.Context, orgID, userID string) ([]Group, error) {
	return c.groupsWhere(ctx, c.db, orgID,
		" AND g.id IN (SELECT group_id FROM user_group_members WHERE org_id = ? AND user_id = ?)", []any{orgID, userID})
}

// lockedGroup reads a group for a change, once no other transaction
// changes it: the no-op update takes the row's lock (PostgreSQL) or the
// database's (SQLite), so the version read is the one the change
// replaces.
func (c *PeopleStore) lockedGroup(ctx context.Context, tx *sql.Tx, orgID, id string) (Group, error) {
	if _, err := tx.ExecContext(ctx, `UPDATE user_groups SET modified_on = modified_on WHERE org_id = ? AND id = ?`, orgID, id); err != nil {
		return Group{}, err
	}
	return c.group(ctx, tx, orgID, id)
}

func (c *PeopleStore) group(ctx context.Context, q querier, orgID, id string) (Group, error) {
	groups, err := c.groupsWhere(ctx, q, orgID, " AND g.id = ?", []any{id})
	if err != nil {
		return Group{}, err
	}
	if len(groups) == 0 {
		return Group{}, ErrNotFound
	}
	return groups[0], nil
}

func (c *PeopleStore) groupsWhere(ctx context.Context, q querier, orgID, cond string, args []any) ([]Group, error) {
	groups, err := queryAll(ctx, q, func(s scanner) (Group, error) {
		var g Group
		err := s.Scan(&g.ID, &g.OrgID, &g.DisplayName, &g.ExternalID, &g.CreatedOn, &g.ModifiedOn)
		g.CreatedOn, g.ModifiedOn, g.Members = g.CreatedOn.UTC(), g.ModifiedOn.UTC(), []GroupMember{}
		return g, err
	}, `SELECT g.id, g.org_id, g.display_name, g.external_id, g.created_on, g.modified_on FROM user_groups g
		WHERE g.org_id = ?`+cond+` ORDER BY g.id`, append([]any{orgID}, args...)...)
	if err != nil || len(groups) == 0 {
		return groups, err
	}
	at := map[string]int{}
	ids := make([]string, len(groups))
	for i, g := range groups {
		at[g.ID], ids[i] = i, g.ID
	}
	type member struct{ group, user, name string }
	members, err := queryAll(ctx, q, func(s scanner) (member, error) {
		var m member
		return m, s.Scan(&m.group, &m.user, &m.name)
	}, `SELECT m.group_id, m.user_id, u.user_name FROM user_group_members m JOIN users u ON u.org_id = m.org_id AND u.id = m.user_id
		WHERE m.org_id = ? AND `+anyOf("m.group_id")+` ORDER BY m.group_id, m.user_id`, orgID, list(ids))
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		g := &groups[at[m.group]]
		g.Members = append(g.Members, GroupMember{UserID: m.user, UserName: m.name})
	}
	return groups, nil
}

// CreateGroup adds a group with its members; its display name must be new
// to the organization (case-insensitively). Its members get what the
// group's mapping grants.
func (c *PeopleStore) CreateGroup(ctx context.Context, orgID string, in GroupInput) (Group, error) {
	id := uuid.Must(uuid.NewV7()).String()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := checkGroupInput(ctx, tx, orgID, "", in); err != nil {
			return err
		}
		t := now()
		_, err := tx.ExecContext(ctx, `INSERT INTO user_groups (id, org_id, display_name, display_name_key, external_id, created_on, modified_on)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, orgID, in.DisplayName, strings.ToLower(in.DisplayName), in.ExternalID, t, t)
		if err != nil {
			return uniqueAs(err, "displayName", "Another group of the organization already has this displayName.")
		}
		joined, err := setMembers(ctx, tx, orgID, id, nil, in.Members)
		if err != nil {
			return err
		}
		return syncGroupAccess(ctx, tx, orgID, joined)
	})
	if err != nil {
		return Group{}, err
	}
	return c.Group(ctx, orgID, id)
}

// ReplaceGroup sets a group's display name, external id and members, when
// it is still at version (its ModifiedOn; ErrChanged otherwise, the zero
// time: whatever its version). Users who join or leave, and members of a
// renamed group, get what their groups now grant.
func (c *PeopleStore) ReplaceGroup(ctx context.Context, orgID, id string, in GroupInput, version time.Time) (Group, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		cur, err := c.lockedGroup(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if !version.IsZero() && !cur.ModifiedOn.Equal(version.UTC()) {
			return ErrChanged
		}
		if err := checkGroupInput(ctx, tx, orgID, id, in); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE user_groups SET display_name = ?, display_name_key = ?, external_id = ?, modified_on = ?
			WHERE org_id = ? AND id = ?`, in.DisplayName, strings.ToLower(in.DisplayName), in.ExternalID, now(), orgID, id)
		if err != nil {
			return uniqueAs(err, "displayName", "Another group of the organization already has this displayName.")
		}
		changed, err := setMembers(ctx, tx, orgID, id, memberIDs(cur), in.Members)
		if err != nil {
			return err
		}
		if !strings.EqualFold(cur.DisplayName, in.DisplayName) {
			// Another name may mean another mapping: every member's access
			// is recomputed.
			changed = in.Members
		}
		return syncGroupAccess(ctx, tx, orgID, changed)
	})
	if err != nil {
		return Group{}, err
	}
	return c.Group(ctx, orgID, id)
}

// DeleteGroup removes a group; its members lose what it granted.
func (c *PeopleStore) DeleteGroup(ctx context.Context, orgID, id string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		cur, err := c.lockedGroup(ctx, tx, orgID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_groups WHERE org_id = ? AND id = ?`, orgID, id); err != nil {
			return err
		}
		left, err := setMembers(ctx, tx, orgID, id, memberIDs(cur), nil)
		if err != nil {
			return err
		}
		return syncGroupAccess(ctx, tx, orgID, left)
	})
}

// checkGroupInput checks a group's display name (present, new to the
// organization) and that its members are users of the organization (self
// is the group being replaced, "" on create).
func checkGroupInput(ctx context.Context, tx *sql.Tx, orgID, self string, in GroupInput) error {
	if strings.TrimSpace(in.DisplayName) == "" {
		return fieldErr("displayName", ErrInvalid, "A group needs a displayName.")
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM user_groups WHERE org_id = ? AND display_name_key = ? AND id <> ?`,
		orgID, strings.ToLower(in.DisplayName), self).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fieldErr("displayName", ErrExists, "Another group of the organization already has this displayName.")
	}
	known, err := queryStrings(ctx, tx, `SELECT id FROM users WHERE org_id = ? AND `+anyOf("id"), orgID, list(in.Members))
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, id := range known {
		have[id] = true
	}
	for _, id := range in.Members {
		if !have[id] {
			return fieldErr("members", ErrInvalid, "No user of the organization has the id '"+id+"' (a member's value is a user's id).")
		}
	}
	return nil
}

// setMembers changes a group's members from before to after, and returns
// the users who joined or left.
func setMembers(ctx context.Context, tx *sql.Tx, orgID, groupID string, before, after []string) ([]string, error) {
	was, is := setOf(before), setOf(after)
	var changed []string
	for id := range was {
		if is[id] {
			continue
		}
		changed = append(changed, id)
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_group_members WHERE org_id = ? AND group_id = ? AND user_id = ?`,
			orgID, groupID, id); err != nil {
			return nil, err
		}
	}
	for id := range is {
		if was[id] {
			continue
		}
		changed = append(changed, id)
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_group_members (org_id, group_id, user_id) VALUES (?, ?, ?)`,
			orgID, groupID, id); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

func memberIDs(g Group) []string {
	ids := make([]string, len(g.Members))
	for i, m := range g.Members {
		ids[i] = m.UserID
	}
	return ids
}

func setOf(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}
