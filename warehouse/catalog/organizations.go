package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// OrgStore keeps organizations and their API clients.
type OrgStore struct {
	handle
	tokenStates *expirable.LRU[string, TokenState]
}

// Organization is a tenant: every row of every later table belongs to one.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedOn time.Time `json:"createdOn"`
}

// CreateOrganization adds an organization with a new UUIDv7 id. A name that
// is taken gives ErrExists.
func (c *OrgStore) CreateOrganization(ctx context.Context, name string) (Organization, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Organization{}, err
	}
	org := Organization{ID: id.String(), Name: name, CreatedOn: now()}
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)`,
			org.ID, org.Name, org.CreatedOn)
		if isUniqueViolation(err) {
			return fmt.Errorf("organization %q: %w", name, ErrExists)
		}
		if err != nil {
			return err
		}
		return insertStandardRoles(ctx, tx, org.ID)
	})
	if err != nil {
		return Organization{}, err
	}
	return org, nil
}

// now is the catalog's clock, as stored (see stamp).
func now() time.Time { return stamp(time.Now()) }

// Organization returns one organization by id.
func (c *OrgStore) Organization(ctx context.Context, id string) (Organization, error) {
	var org Organization
	err := c.db.QueryRowContext(ctx, `SELECT id, name, created_on FROM organizations WHERE id = ?`, id).
		Scan(&org.ID, &org.Name, &org.CreatedOn)
	if errors.Is(err, sql.ErrNoRows) {
		return Organization{}, fmt.Errorf("organization %s: %w", id, ErrNotFound)
	}
	return org, err
}

// Organizations lists every organization by id (creation order).
func (c *OrgStore) Organizations(ctx context.Context) ([]Organization, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, name, created_on FROM organizations ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Organization{}
	for rows.Next() {
		var org Organization
		if err := rows.Scan(&org.ID, &org.Name, &org.CreatedOn); err != nil {
			return nil, err
		}
		org.CreatedOn = org.CreatedOn.UTC()
		out = append(out, org)
	}
	return out, rows.Err()
}
