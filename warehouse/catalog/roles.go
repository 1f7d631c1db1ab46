package catalog

import (
	"context"
	"database/sql"
)

// Permission is one thing a role may do.
type Permission struct {
	Name        string
	Description string
}

// Permissions is every permission, in display order.
var Permissions = []Permission{
	{"conversations.read", "View conversations, their metadata and transcripts."},
	{"conversations.upload", "Upload recordings, chat archives and text conversations."},
	{"conversations.edit", "Change conversation metadata."},
	{"results.read", "Read classifier and model results and insights."},
	{"results.review", "Record human review and quality-control results."},
	{"evaluations.perform", "Answer and submit evaluations assigned to you; complete workflow levels assigned to you."},
	{"evaluations.manage", "Create evaluation forms, assign evaluations, start workflows and run QA sampling."},
	{"classifiers.read", "View classifiers and their definitions."},
	{"classifiers.manage", "Create, change, test, re-run and retire classifiers."},
	{"agents.read", "View agents."},
	{"agents.manage", "Create and change agents and their hierarchy nodes."},
	{"hierarchy.read", "View the organization hierarchy."},
	{"hierarchy.manage", "Create, move and deactivate hierarchy nodes."},
	{"users.read", "View users and roles."},
	{"users.manage", "Create and change users and assign roles."},
	{"lake.query", "Query the analytics lake with SQL."},
	{"jobs.run", "Run jobs and view job runs."},
	{"organization.admin", "Manage organization settings and API clients."},
}

func permissionDescription(name string) string {
	for _, p := range Permissions {
		if p.Name == name {
			return p.Description
		}
	}
	return ""
}

// standardRoles are the roles every organization starts with. Their
// permissions are declared here alone: every start writes them to each
// organization's roles, so a permission added here reaches organizations
// created before it.
var standardRoles = []struct {
	name        string
	permissions []string
}{
	{"Administrator", allPermissions()},
	{"Analyst", []string{"conversations.read", "results.read", "evaluations.perform", "classifiers.read", "classifiers.manage",
		"agents.read", "hierarchy.read", "users.read", "lake.query", "jobs.run"}},
	{"Supervisor", []string{"conversations.read", "conversations.edit", "results.read", "results.review",
		"evaluations.perform", "evaluations.manage", "classifiers.read", "agents.read", "agents.manage", "hierarchy.read", "users.read"}},
	{"Agent", []string{"conversations.read", "results.read"}},
}

// DefaultRole is given to a user created without a role: the least privilege.
const DefaultRole = "Agent"

func allPermissions() []string {
	out := make([]string, len(Permissions))
	for i, p := range Permissions {
		out[i] = p.Name
	}
	return out
}

// StandardRoles are the standard roles as declared, with their
// permissions' descriptions.
func StandardRoles() []Role {
	out := make([]Role, len(standardRoles))
	for i, r := range standardRoles {
		out[i] = Role{Name: r.name, IsActive: true}
		for _, p := range r.permissions {
			out[i].Permissions = append(out[i].Permissions, Permission{Name: p, Description: permissionDescription(p)})
		}
	}
	return out
}

// Role is a named set of permissions of an organization.
type Role struct {
	Name        string
	IsActive    bool
	Permissions []Permission
}

// insertStandardRoles gives an organization the standard roles, with the
// permissions declared in standardRoles.
func insertStandardRoles(ctx context.Context, tx *sql.Tx, orgID string) error {
	for _, r := range standardRoles {
		if _, err := tx.ExecContext(ctx, `INSERT INTO roles (org_id, name, is_active, permissions) VALUES (?, ?, true, ?)
			ON CONFLICT (org_id, name) DO UPDATE SET permissions = excluded.permissions`,
			orgID, r.name, strList(r.permissions)); err != nil {
			return err
		}
	}
	return nil
}

// ensureStandardRoles gives every organization the standard roles as
// declared now (organizations created before roles, or before a permission
// was added).
func (c *Catalog) ensureStandardRoles(ctx context.Context) error {
	orgs, err := c.Orgs.Organizations(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		if err := c.inTx(ctx, func(tx *sql.Tx) error { return insertStandardRoles(ctx, tx, org.ID) }); err != nil {
			return err
		}
	}
	return nil
}

// Roles lists an organization's roles by name; active filters when not nil.
func (c *PeopleStore) Roles(ctx context.Context, orgID string, active *bool) ([]Role, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT name, is_active, permissions FROM roles
		WHERE org_id = ? AND (CAST(? AS BOOLEAN) IS NULL OR is_active = ?) ORDER BY name`, orgID, active, active)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Role{}
	for rows.Next() {
		var r Role
		var perms strList
		if err := rows.Scan(&r.Name, &r.IsActive, &perms); err != nil {
			return nil, err
		}
		for _, name := range perms {
			r.Permissions = append(r.Permissions, Permission{Name: name, Description: permissionDescription(name)})
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// roleExists tells whether an organization has an active role of that name.
func roleExists(ctx context.Context, q querier, orgID, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM roles WHERE org_id = ? AND name = ? AND is_active`, orgID, name).Scan(&n)
	return n > 0, err
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
