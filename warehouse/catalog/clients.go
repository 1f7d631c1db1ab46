package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// APIClient is an OAuth 2.0 client of one organization. SecretHash is a
// bcrypt hash; the secret itself is never stored.
type APIClient struct {
	ID         string    `json:"clientId"`
	OrgID      string    `json:"organizationId"`
	Name       string    `json:"name"`
	SecretHash string    `json:"-"`
	Disabled   bool      `json:"disabled"`
	CreatedOn  time.Time `json:"createdOn"`
}

const clientColumns = `id, org_id, name, secret_hash, disabled, created_on`

// CreateClient stores a new client. The organization must exist; an id that
// is taken gives ErrExists.
func (c *OrgStore) CreateClient(ctx context.Context, client APIClient) (APIClient, error) {
	client.CreatedOn = now()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM organizations WHERE id = ?`, client.OrgID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("organization %s: %w", client.OrgID, ErrNotFound)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_clients (`+clientColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
			client.ID, client.OrgID, client.Name, client.SecretHash, client.Disabled, client.CreatedOn)
		if isUniqueViolation(err) {
			return fmt.Errorf("client %s: %w", client.ID, ErrExists)
		}
		return err
	})
	return client, err
}

// Client returns one client by id, whatever its organization: the token
// endpoint does not know the organization before it has found the client.
func (c *OrgStore) Client(ctx context.Context, id string) (APIClient, error) {
	row := c.db.QueryRowContext(ctx, `SELECT `+clientColumns+` FROM api_clients WHERE id = ?`, id)
	client, err := scanClient(row)
	if errors.Is(err, sql.ErrNoRows) {
		return APIClient{}, fmt.Errorf("client %s: %w", id, ErrNotFound)
	}
	return client, err
}

// Clients lists the clients of one organization, or of all when orgID is "".
func (c *OrgStore) Clients(ctx context.Context, orgID string) ([]APIClient, error) {
	return queryAll(ctx, c.db, scanClient, `SELECT `+clientColumns+` FROM api_clients
		WHERE ? = '' OR org_id = ? ORDER BY org_id, created_on, id`, orgID, orgID)
}

// SetClientDisabled disables (or enables again) a client. Tokens it already
// holds stay valid until they expire; new ones are refused.
func (c *OrgStore) SetClientDisabled(ctx context.Context, id string, disabled bool) error {
	res, err := c.db.ExecContext(ctx, `UPDATE api_clients SET disabled = ? WHERE id = ?`, disabled, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("client %s: %w", id, ErrNotFound)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scanClient(s scanner) (APIClient, error) {
	var cl APIClient
	err := s.Scan(&cl.ID, &cl.OrgID, &cl.Name, &cl.SecretHash, &cl.Disabled, &cl.CreatedOn)
	cl.CreatedOn = cl.CreatedOn.UTC()
	return cl, err
}
