package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// User is a person of an organization who signs in to dashboards.
type User struct {
	ID                   string     `json:"id"`
	OrgID                string     `json:"organizationId"`
	UserName             string     `json:"userName"`
	FirstName            string     `json:"firstName"`
	LastName             string     `json:"lastName"`
	Email                string     `json:"email"`
	PhoneNumber          *string    `json:"phoneNumber"`
	EmailConfirmed       bool       `json:"emailConfirmed"`
	Disabled             bool       `json:"disabled"`
	RoleName             string     `json:"roleName"`
	SAMLProviderUserCode *string    `json:"samlProviderUserCode"`
	LastLogin            *time.Time `json:"lastLogin"`
	CreatedOn            time.Time  `json:"createdOn"`
	ModifiedOn           time.Time  `json:"modifiedOn"`
	AgentID              *string    `json:"agentId"` // the agent linked to this user, if any
	// SCIMAttributes are the SCIM attributes Earshot has no field for
	// (displayName, title, the enterprise extension …), as a JSON object.
	SCIMAttributes json.RawMessage `json:"-"`
	// RoleFromGroups: the role was given by a group the user is in.
	RoleFromGroups bool `json:"-"`
}

// UserInput is a create or an update: nil fields are left as they are (on
// create: empty, or the default role).
type UserInput struct {
	UserName, FirstName, LastName, Email        *string
	PhoneNumber, RoleName, SAMLProviderUserCode *string
	Disabled, EmailConfirmed                    *bool
	SCIMAttributes                              json.RawMessage // nil: left as it is
}

const userColumns = `u.id, u.org_id, u.user_name, u.first_name, u.last_name, u.email, u.phone_number,
	u.email_confirmed, u.disabled, u.role_name, u.saml_provider_user_code, u.last_login, u.created_on, u.modified_on,
	(SELECT min(a.id) FROM agents a WHERE a.org_id = u.org_id AND a.user_id = u.id), u.scim_attributes, u.role_from_groups`

func scanUser(s scanner) (User, error) {
	var u User
	err := s.Scan(&u.ID, &u.OrgID, &u.UserName, &u.FirstName, &u.LastName, &u.Email, &u.PhoneNumber,
		&u.EmailConfirmed, &u.Disabled, &u.RoleName, &u.SAMLProviderUserCode, &u.LastLogin, &u.CreatedOn, &u.ModifiedOn, &u.AgentID,
		(*rawJSON)(&u.SCIMAttributes), &u.RoleFromGroups)
	u.CreatedOn, u.ModifiedOn = u.CreatedOn.UTC(), u.ModifiedOn.UTC()
	if u.LastLogin != nil {
		t := u.LastLogin.UTC()
		u.LastLogin = &t
	}
	return u, err
}

// Users lists an organization's users by id; active (not disabled) filters
// when not nil.
func (c *PeopleStore) Users(ctx context.Context, orgID string, active *bool) ([]User, error) {
	return queryAll(ctx, c.db, scanUser, `SELECT `+userColumns+` FROM users u
		WHERE u.org_id = ? AND (CAST(? AS BOOLEAN) IS NULL OR u.disabled = NOT ?) ORDER BY u.id`, orgID, active, active)
}

// User returns a user of the organization; ErrNotFound for any other id.
func (c *PeopleStore) User(ctx context.Context, orgID, id string) (User, error) {
	return c.userWhere(ctx, c.db, orgID, "u.id = ?", id)
}

// UserByName finds a user by user name, case-insensitively.
func (c *PeopleStore) UserByName(ctx context.Context, orgID, userName string) (User, error) {
	return c.userWhere(ctx, c.db, orgID, "u.user_name_key = ?", strings.ToLower(userName))
}

func (c *PeopleStore) userWhere(ctx context.Context, q querier, orgID, cond string, arg any) (User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.org_id = ? AND `+cond, orgID, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	return u, err
}

// CreateUser adds a user. userName and email (when given) must be new to
// the organization (case-insensitively); roleName must name an active
// role. Names and email left out are empty.
func (c *PeopleStore) CreateUser(ctx context.Context, orgID string, in UserInput) (User, error) {
	id := uuid.Must(uuid.NewV7()).String()
	if in.RoleName == nil {
		role := DefaultRole
		in.RoleName = &role
	}
	if in.SCIMAttributes == nil {
		in.SCIMAttributes = json.RawMessage("{}")
	}
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := checkUserInput(ctx, tx, orgID, "", in); err != nil {
			return err
		}
		t := now()
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, org_id, user_name, user_name_key, first_name, last_name,
			email, email_key, phone_number, email_confirmed, disabled, role_name, saml_provider_user_code, created_on, modified_on,
			scim_attributes)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, orgID, *in.UserName, strings.ToLower(*in.UserName), deref(in.FirstName), deref(in.LastName),
			deref(in.Email), emailKey(deref(in.Email)), in.PhoneNumber, deref(in.EmailConfirmed), deref(in.Disabled),
			*in.RoleName, in.SAMLProviderUserCode, t, t, string(in.SCIMAttributes))
		return uniqueAs(err, "userName", "A user with this userName or email already exists in the organization.")
	})
	if err != nil {
		return User{}, err
	}
	return c.User(ctx, orgID, id)
}

// UpdateUser changes the given fields of a user of the organization.
func (c *PeopleStore) UpdateUser(ctx context.Context, orgID, id string, in UserInput) (User, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		cur, err := c.userWhere(ctx, tx, orgID, "u.id = ?", id)
		if err != nil {
			return err
		}
		if err := checkUserInput(ctx, tx, orgID, id, in); err != nil {
			return err
		}
		set(&cur.UserName, in.UserName)
		set(&cur.FirstName, in.FirstName)
		set(&cur.LastName, in.LastName)
		set(&cur.Email, in.Email)
		if in.RoleName != nil && *in.RoleName != cur.RoleName {
			cur.RoleName, cur.RoleFromGroups = *in.RoleName, false
		}
		set(&cur.Disabled, in.Disabled)
		set(&cur.EmailConfirmed, in.EmailConfirmed)
		if in.PhoneNumber != nil {
			cur.PhoneNumber = in.PhoneNumber
		}
		if in.SAMLProviderUserCode != nil {
			cur.SAMLProviderUserCode = in.SAMLProviderUserCode
		}
		if in.SCIMAttributes != nil {
			cur.SCIMAttributes = in.SCIMAttributes
		}
		_, err = tx.ExecContext(ctx, `UPDATE users SET user_name = ?, user_name_key = ?, first_name = ?, last_name = ?,
			email = ?, email_key = ?, phone_number = ?, email_confirmed = ?, disabled = ?, role_name = ?,
			saml_provider_user_code = ?, scim_attributes = ?, role_from_groups = ?, modified_on = ? WHERE org_id = ? AND id = ?`,
			cur.UserName, strings.ToLower(cur.UserName), cur.FirstName, cur.LastName, cur.Email, emailKey(cur.Email),
			cur.PhoneNumber, cur.EmailConfirmed, cur.Disabled, cur.RoleName, cur.SAMLProviderUserCode, string(cur.SCIMAttributes),
			cur.RoleFromGroups, now(), orgID, id)
		return uniqueAs(err, "userName", "A user with this userName or email already exists in the organization.")
	})
	if err != nil {
		return User{}, err
	}
	return c.User(ctx, orgID, id)
}

// checkUserInput checks the role and the uniqueness of userName and email
// (self is the user being updated, "" on create). The unique indexes are the
// last word under concurrency; these checks name the field.
func checkUserInput(ctx context.Context, tx *sql.Tx, orgID, self string, in UserInput) error {
	if in.RoleName != nil {
		ok, err := roleExists(ctx, tx, orgID, *in.RoleName)
		if err != nil {
			return err
		}
		if !ok {
			return fieldErr("roleName", ErrInvalid, "No role of the organization has the name '"+*in.RoleName+"'; see GET /Roles/All.")
		}
	}
	for _, f := range []struct {
		field, column string
		value         *string
	}{{"userName", "user_name_key", in.UserName}, {"email", "email_key", in.Email}} {
		if f.value == nil {
			continue
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE org_id = ? AND `+f.column+` = ? AND id <> ?`,
			orgID, strings.ToLower(*f.value), self).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fieldErr(f.field, ErrExists, "Another user of the organization already has this "+f.field+".")
		}
	}
	return nil
}

// activeUsers returns which of ids are active users of the organization.
func activeUsers(ctx context.Context, q querier, orgID string, ids []string) (map[string]User, error) {
	out := map[string]User{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT `+userColumns+` FROM users u
		WHERE u.org_id = ? AND NOT u.disabled AND `+anyOf("u.id"), orgID, list(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out[u.ID] = u
	}
	return out, rows.Err()
}

// emailKey is an e-mail address's unique key: none for no address, so
// that any number of users may have none.
func emailKey(email string) *string {
	if email == "" {
		return nil
	}
	key := strings.ToLower(email)
	return &key
}

// ValidEmail tells whether s is a bare e-mail address (no display name).
func ValidEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func deref[T any](v *T) T {
	var zero T
	if v == nil {
		return zero
	}
	return *v
}

// uniqueAs turns a unique violation that slipped past the checks (two
// writers at once) into a FieldError.
func uniqueAs(err error, field, message string) error {
	if isUniqueViolation(err) {
		return fieldErr(field, ErrExists, message)
	}
	return err
}

// DeleteUser removes a user of the organization and every reference to
// it: its agent and managed agents are unlinked, it leaves the hierarchy's
// contact lists and its groups, and its hierarchy grants go. Evaluations it made keep its
// id as their analyst.
func (c *PeopleStore) DeleteUser(ctx context.Context, orgID, id string) error {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM users WHERE org_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		for _, statement := range []string{
			`UPDATE agents SET user_id = NULL WHERE org_id = ? AND user_id = ?`,
			`UPDATE agents SET manager_id = NULL WHERE org_id = ? AND manager_id = ?`,
			`DELETE FROM user_hierarchy WHERE org_id = ? AND user_id = ?`,
			`DELETE FROM user_group_members WHERE org_id = ? AND user_id = ?`,
			`DELETE FROM sessions WHERE org_id = ? AND user_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, statement, orgID, id); err != nil {
				return err
			}
		}
		nodes, err := loadNodes(ctx, tx, orgID)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			lists := []*[]string{&n.AdministrativeContacts, &n.EscalationContacts, &n.ManagerContacts}
			changed := false
			for _, l := range lists {
				if kept := slices.DeleteFunc(slices.Clone(*l), func(u string) bool { return u == id }); len(kept) != len(*l) {
					*l, changed = kept, true
				}
			}
			if changed {
				if _, err := tx.ExecContext(ctx, `UPDATE hierarchy_nodes SET administrative_contacts = ?, escalation_contacts = ?,
					manager_contacts = ? WHERE org_id = ? AND id = ?`, strList(n.AdministrativeContacts), strList(n.EscalationContacts),
					strList(n.ManagerContacts), orgID, n.ID); err != nil {
					return err
				}
			}
		}
		return c.changed(ctx, tx, domainHierarchy, orgID)
	})
	c.trees.invalidate(orgID)
	return err
}

// UserByEmail finds a user by e-mail address, case-insensitively.
func (c *PeopleStore) UserByEmail(ctx context.Context, orgID, email string) (User, error) {
	return c.userWhere(ctx, c.db, orgID, "u.email_key = ?", strings.ToLower(email))
}
