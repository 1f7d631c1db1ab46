package catalog

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Agent is a person whose conversations Earshot analyses.
type Agent struct {
	ID         string
	OrgID      string
	UserID     *string // the user account of the agent, if any
	ManagerID  *string // a user of the organization
	FirstName  string
	LastName   string
	AgentEmail string
	AgentCode  *string
	IsActive   bool
	StartDate  *time.Time
	OSMs       []string // hierarchy node ids
	CreatedOn  time.Time
	ModifiedOn time.Time
}

// AgentInput is a create or an update; nil fields are left as they are.
// UserID and ManagerID "" unlink; AgentCode "" removes the code.
type AgentInput struct {
	FirstName, LastName, AgentEmail, AgentCode *string
	UserID, ManagerID                          *string
	OSMs                                       *[]string
	StartDate                                  *time.Time
	IsActive                                   *bool
}

const agentColumns = `id, org_id, user_id, manager_id, first_name, last_name, agent_email, agent_code,
	is_active, start_date, osms, created_on, modified_on`

func scanAgent(s scanner) (Agent, error) {
	var a Agent
	err := s.Scan(&a.ID, &a.OrgID, &a.UserID, &a.ManagerID, &a.FirstName, &a.LastName, &a.AgentEmail, &a.AgentCode,
		&a.IsActive, &a.StartDate, (*strList)(&a.OSMs), &a.CreatedOn, &a.ModifiedOn)
	a.CreatedOn, a.ModifiedOn = a.CreatedOn.UTC(), a.ModifiedOn.UTC()
	if a.StartDate != nil {
		t := a.StartDate.UTC()
		a.StartDate = &t
	}
	return a, err
}

// Agents lists an organization's agents by id; active filters when not nil.
func (c *PeopleStore) Agents(ctx context.Context, orgID string, active *bool) ([]Agent, error) {
	return queryAll(ctx, c.db, scanAgent, `SELECT `+agentColumns+` FROM agents
		WHERE org_id = ? AND (CAST(? AS BOOLEAN) IS NULL OR is_active = ?) ORDER BY id`, orgID, active, active)
}

// Agent returns an agent of the organization; ErrNotFound for any other id.
func (c *PeopleStore) Agent(ctx context.Context, orgID, id string) (Agent, error) {
	return agentWhere(ctx, c.db, orgID, "id = ?", id)
}

// AgentByCode finds an agent by its agentCode, ignoring case.
func (c *PeopleStore) AgentByCode(ctx context.Context, orgID, code string) (Agent, error) {
	return agentWhere(ctx, c.db, orgID, "agent_code_key = ?", strings.ToLower(code))
}

func agentWhere(ctx context.Context, q querier, orgID, cond string, arg any) (Agent, error) {
	a, err := scanAgent(q.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE org_id = ? AND `+cond, orgID, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, ErrNotFound
	}
	return a, err
}

// CreateAgent adds an agent.
func (c *PeopleStore) CreateAgent(ctx context.Context, orgID string, in AgentInput) (Agent, error) {
	a := Agent{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, IsActive: true, OSMs: []string{}}
	err := c.inTx(ctx, func(tx *sql.Tx) error { return c.writeAgent(ctx, tx, a, in, true) })
	if err != nil {
		return Agent{}, err
	}
	return c.Agent(ctx, orgID, a.ID)
}

// UpdateAgent changes an agent of the organization.
func (c *PeopleStore) UpdateAgent(ctx context.Context, orgID, id string, in AgentInput) (Agent, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		a, err := agentWhere(ctx, tx, orgID, "id = ?", id)
		if err != nil {
			return err
		}
		return c.writeAgent(ctx, tx, a, in, false)
	})
	if err != nil {
		return Agent{}, err
	}
	return c.Agent(ctx, orgID, id)
}

func (c *PeopleStore) writeAgent(ctx context.Context, tx *sql.Tx, a Agent, in AgentInput, create bool) error {
	set(&a.FirstName, in.FirstName)
	set(&a.LastName, in.LastName)
	set(&a.AgentEmail, in.AgentEmail)
	set(&a.IsActive, in.IsActive)
	if in.StartDate != nil {
		a.StartDate = in.StartDate
	}
	if in.AgentCode != nil {
		a.AgentCode = emptyToNil(*in.AgentCode)
	}
	if a.AgentCode != nil && in.AgentCode != nil {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE org_id = ? AND agent_code_key = ? AND id <> ?`,
			a.OrgID, strings.ToLower(*a.AgentCode), a.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fieldErr("agentCode", ErrExists, "Another agent of the organization already has the agentCode '"+*a.AgentCode+"'.")
		}
	}
	for _, link := range []struct {
		field string
		dst   **string
		in    *string
	}{{"userId", &a.UserID, in.UserID}, {"managerId", &a.ManagerID, in.ManagerID}} {
		if link.in == nil {
			continue
		}
		if *link.in == "" {
			*link.dst = nil
			continue
		}
		users, err := activeUsers(ctx, tx, a.OrgID, []string{*link.in})
		if err != nil {
			return err
		}
		if len(users) == 0 {
			return fieldErr(link.field, ErrInvalid, "No active user of the organization has the id "+*link.in+".")
		}
		id := *link.in
		*link.dst = &id
	}
	if in.UserID != nil && a.UserID != nil {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE org_id = ? AND user_id = ? AND id <> ?`,
			a.OrgID, *a.UserID, a.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fieldErr("userId", ErrExists, "The user "+*a.UserID+" is already linked to another agent.")
		}
	}
	if in.OSMs != nil {
		nodes, err := loadNodes(ctx, tx, a.OrgID)
		if err != nil {
			return err
		}
		tree := NewTree(nodes)
		for _, id := range *in.OSMs {
			if _, ok := tree.Node(id); !ok {
				return fieldErr("osms", ErrInvalid, "No hierarchy node of the organization has the id "+id+".")
			}
		}
		a.OSMs = dedupe(*in.OSMs)
	}

	var codeKey *string
	if a.AgentCode != nil {
		k := strings.ToLower(*a.AgentCode)
		codeKey = &k
	}
	t := now()
	var err error
	if create {
		_, err = tx.ExecContext(ctx, `INSERT INTO agents (`+agentColumns+`, agent_code_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.OrgID, a.UserID, a.ManagerID, a.FirstName, a.LastName, a.AgentEmail, a.AgentCode,
			a.IsActive, stampPtr(a.StartDate), strList(a.OSMs), t, t, codeKey)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE agents SET user_id = ?, manager_id = ?, first_name = ?, last_name = ?,
			agent_email = ?, agent_code = ?, agent_code_key = ?, is_active = ?, start_date = ?, osms = ?, modified_on = ?
			WHERE org_id = ? AND id = ?`,
			a.UserID, a.ManagerID, a.FirstName, a.LastName, a.AgentEmail, a.AgentCode, codeKey,
			a.IsActive, stampPtr(a.StartDate), strList(a.OSMs), t, a.OrgID, a.ID)
	}
	return uniqueAs(err, "agentCode", "Another agent of the organization already has this agentCode.")
}
