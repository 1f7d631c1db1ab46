package catalog

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Node is one node of an organization's hierarchy (region, site, team, …).
type Node struct {
	ID                     string
	OrgID                  string
	ParentID               *string
	Name                   string
	Category               *string
	SubCategory            *string
	Code                   *string
	IsActive               bool
	AdministrativeContacts []string // user ids
	EscalationContacts     []string
	ManagerContacts        []string
	HierarchyCodes         []string // extra codes, besides Code
	CreatedOn              time.Time
	ModifiedOn             time.Time
}

// NodeInput is a create or an update; nil fields are left as they are.
type NodeInput struct {
	Name, Category, SubCategory, Code                           *string
	AdministrativeContacts, EscalationContacts, ManagerContacts *[]string
	HierarchyCodes                                              *[]string
	// Parent is the parent on create and the new parent on update; ""
	// means the top level.
	Parent   *string
	IsActive *bool
}

// Hierarchy returns the organization's hierarchy, from memory when it has
// not changed since it was last read.
func (c *PeopleStore) Hierarchy(ctx context.Context, orgID string) (*Tree, error) {
	return c.trees.load(orgID, func() (*Tree, error) {
		nodes, err := loadNodes(ctx, c.db, orgID)
		if err != nil {
			return nil, err
		}
		return NewTree(nodes), nil
	})
}

func loadNodes(ctx context.Context, q querier, orgID string) ([]Node, error) {
	rows, err := q.QueryContext(ctx, `SELECT n.id, n.org_id, n.parent_id, n.name, n.category, n.sub_category, n.code,
		n.is_active, n.administrative_contacts, n.escalation_contacts, n.manager_contacts, n.created_on, n.modified_on,
		coalesce(extra.codes, '[]')
		FROM hierarchy_nodes n
		LEFT JOIN (SELECT node_id, json_group_array(code) AS codes
		           FROM (SELECT node_id, code FROM hierarchy_codes WHERE org_id = ? AND NOT is_primary ORDER BY node_id, position) ordered
		           GROUP BY node_id) extra ON extra.node_id = n.id
		WHERE n.org_id = ? ORDER BY n.id`, orgID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Node{}
	for rows.Next() {
		var n Node
		if err := rows.Scan(&n.ID, &n.OrgID, &n.ParentID, &n.Name, &n.Category, &n.SubCategory, &n.Code,
			&n.IsActive, (*strList)(&n.AdministrativeContacts), (*strList)(&n.EscalationContacts), (*strList)(&n.ManagerContacts),
			&n.CreatedOn, &n.ModifiedOn, (*strList)(&n.HierarchyCodes)); err != nil {
			return nil, err
		}
		n.CreatedOn, n.ModifiedOn = n.CreatedOn.UTC(), n.ModifiedOn.UTC()
		out = append(out, n)
	}
	return out, rows.Err()
}

// CreateNode adds a node to the organization's hierarchy.
func (c *PeopleStore) CreateNode(ctx context.Context, orgID string, in NodeInput) (Node, error) {
	id := uuid.Must(uuid.NewV7()).String()
	err := c.hierarchyTx(ctx, orgID, func(tx *sql.Tx, tree *Tree) error {
		n := Node{ID: id, OrgID: orgID, IsActive: true, AdministrativeContacts: []string{}, EscalationContacts: []string{}, ManagerContacts: []string{}}
		if in.Parent != nil && *in.Parent != "" {
			if _, ok := tree.Node(*in.Parent); !ok {
				return fieldErr("parentId", ErrInvalid, "No hierarchy node of the organization has the id "+*in.Parent+".")
			}
			n.ParentID = in.Parent
		}
		return c.writeNode(ctx, tx, tree, n, in, true)
	})
	if err != nil {
		return Node{}, err
	}
	return c.node(ctx, orgID, id)
}

// UpdateNode changes a node; moving it below itself or below one of its own
// descendants is refused.
func (c *PeopleStore) UpdateNode(ctx context.Context, orgID, id string, in NodeInput) (Node, error) {
	err := c.hierarchyTx(ctx, orgID, func(tx *sql.Tx, tree *Tree) error {
		n, ok := tree.Node(id)
		if !ok {
			return ErrNotFound
		}
		if in.Parent != nil {
			switch p := *in.Parent; {
			case p == "":
				n.ParentID = nil
			case tree.IsWithin(p, id):
				return fieldErr("newParentId", ErrInvalid, "A node cannot move below itself or one of its own descendants.")
			default:
				if _, ok := tree.Node(p); !ok {
					return fieldErr("newParentId", ErrInvalid, "No hierarchy node of the organization has the id "+p+".")
				}
				n.ParentID = &p
			}
		}
		return c.writeNode(ctx, tx, tree, n, in, false)
	})
	if err != nil {
		return Node{}, err
	}
	return c.node(ctx, orgID, id)
}

func (c *PeopleStore) node(ctx context.Context, orgID, id string) (Node, error) {
	tree, err := c.Hierarchy(ctx, orgID)
	if err != nil {
		return Node{}, err
	}
	n, ok := tree.Node(id)
	if !ok {
		return Node{}, ErrNotFound
	}
	return n, nil
}

// hierarchyTx runs fn with the organization's hierarchy as the transaction
// sees it, and drops the cached tree after a change.
func (c *PeopleStore) hierarchyTx(ctx context.Context, orgID string, fn func(tx *sql.Tx, tree *Tree) error) error {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		nodes, err := loadNodes(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if err := fn(tx, NewTree(nodes)); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainHierarchy, orgID)
	})
	c.trees.invalidate(orgID)
	return err
}

// writeNode applies in to n, checks contacts and codes, and writes the node
// and its codes.
func (c *PeopleStore) writeNode(ctx context.Context, tx *sql.Tx, tree *Tree, n Node, in NodeInput, create bool) error {
	set(&n.Name, in.Name)
	if in.Category != nil {
		n.Category = emptyToNil(*in.Category)
	}
	if in.SubCategory != nil {
		n.SubCategory = emptyToNil(*in.SubCategory)
	}
	if in.Code != nil {
		n.Code = emptyToNil(*in.Code)
	}
	set(&n.HierarchyCodes, in.HierarchyCodes)
	set(&n.IsActive, in.IsActive)
	contacts := []struct {
		field string
		dst   *[]string
		in    *[]string
	}{
		{"administrativeContactsUserIds", &n.AdministrativeContacts, in.AdministrativeContacts},
		{"escalationContactsUserIds", &n.EscalationContacts, in.EscalationContacts},
		{"managerContactsUserIds", &n.ManagerContacts, in.ManagerContacts},
	}
	for _, ct := range contacts {
		if ct.in == nil {
			continue
		}
		ids := dedupe(*ct.in)
		users, err := activeUsers(ctx, tx, n.OrgID, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, ok := users[id]; !ok {
				return fieldErr(ct.field, ErrInvalid, "No active user of the organization has the id "+id+".")
			}
		}
		*ct.dst = ids
	}
	if err := checkCodes(tree, n); err != nil {
		return err
	}
	t := now()
	var err error
	if create {
		_, err = tx.ExecContext(ctx, `INSERT INTO hierarchy_nodes (id, org_id, parent_id, name, category, sub_category, code,
			is_active, administrative_contacts, escalation_contacts, manager_contacts, created_on, modified_on)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			n.ID, n.OrgID, n.ParentID, n.Name, n.Category, n.SubCategory, n.Code, n.IsActive,
			strList(n.AdministrativeContacts), strList(n.EscalationContacts), strList(n.ManagerContacts), t, t)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE hierarchy_nodes SET parent_id = ?, name = ?, category = ?, sub_category = ?,
			code = ?, is_active = ?, administrative_contacts = ?, escalation_contacts = ?, manager_contacts = ?, modified_on = ?
			WHERE org_id = ? AND id = ?`,
			n.ParentID, n.Name, n.Category, n.SubCategory, n.Code, n.IsActive,
			strList(n.AdministrativeContacts), strList(n.EscalationContacts), strList(n.ManagerContacts), t, n.OrgID, n.ID)
	}
	if err != nil {
		return err
	}
	return writeCodes(ctx, tx, n)
}

// checkCodes refuses a code (main or extra) that another node of the
// organization uses, or that the node lists twice.
func checkCodes(tree *Tree, n Node) error {
	seen := map[string]bool{}
	all := n.HierarchyCodes
	if n.Code != nil {
		all = append([]string{*n.Code}, all...)
	}
	for i, code := range all {
		field := "hierarchyCodes"
		if i == 0 && n.Code != nil {
			field = "code"
		}
		key := strings.ToLower(strings.TrimSpace(code))
		if key == "" || len(code) > 200 {
			return fieldErr(field, ErrInvalid, "A code must be 1 to 200 characters.")
		}
		if seen[key] {
			return fieldErr(field, ErrExists, "The code '"+code+"' is given twice.")
		}
		seen[key] = true
		if other, ok := tree.ByCode(code); ok && other.ID != n.ID {
			return fieldErr(field, ErrExists, "The code '"+code+"' already belongs to another hierarchy node of the organization.")
		}
	}
	return nil
}

func writeCodes(ctx context.Context, tx *sql.Tx, n Node) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM hierarchy_codes WHERE org_id = ? AND node_id = ?`, n.OrgID, n.ID); err != nil {
		return err
	}
	insert := func(code string, primary bool, pos int) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO hierarchy_codes (org_id, code_key, code, node_id, is_primary, position) VALUES (?, ?, ?, ?, ?, ?)`,
			n.OrgID, strings.ToLower(code), code, n.ID, primary, pos)
		return uniqueAs(err, "code", "This code already belongs to another hierarchy node of the organization.")
	}
	if n.Code != nil {
		if err := insert(*n.Code, true, 0); err != nil {
			return err
		}
	}
	for i, code := range n.HierarchyCodes {
		if err := insert(code, false, i+1); err != nil {
			return err
		}
	}
	return nil
}

func emptyToNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
