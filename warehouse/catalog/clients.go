package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
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
	// TokenGeneration is what the client's tokens are issued under;
	// disabling it or rotating its secret moves it on, ending the tokens
	// issued before.
	TokenGeneration int `json:"-"`
	// Scopes are the scopes it may request (ClientScopes).
	Scopes []string `json:"scopes"`
}

// ClientScopes are the scopes a client may be given: the API, and the
// provisioning of users through SCIM.
var ClientScopes = []string{"acxapi", "scim"}

const clientColumns = `id, org_id, name, secret_hash, disabled, created_on, token_generation, scopes`

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
		if len(client.Scopes) == 0 {
			client.Scopes = []string{"acxapi"}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_clients (`+clientColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			client.ID, client.OrgID, client.Name, client.SecretHash, client.Disabled, client.CreatedOn, client.TokenGeneration,
			strings.Join(client.Scopes, " "))
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

// SetClientDisabled disables (or enables again) a client. Disabling ends
// the tokens it holds (enabling it again does not bring them back).
func (c *OrgStore) SetClientDisabled(ctx context.Context, id string, disabled bool) error {
	return c.changeClient(ctx, id, `UPDATE api_clients SET disabled = ?,
		token_generation = token_generation + CASE WHEN ? THEN 1 ELSE 0 END WHERE id = ?`, disabled, disabled, id)
}

// SetClientSecret replaces a client's secret hash and ends the tokens
// issued under the old secret.
func (c *OrgStore) SetClientSecret(ctx context.Context, id, secretHash string) error {
	return c.changeClient(ctx, id, `UPDATE api_clients SET secret_hash = ?, token_generation = token_generation + 1 WHERE id = ?`, secretHash, id)
}

// SetClientScopes replaces the scopes a client may request and ends its
// tokens (a removed scope goes with them).
func (c *OrgStore) SetClientScopes(ctx context.Context, id string, scopes []string) error {
	for _, s := range scopes {
		if !slices.Contains(ClientScopes, s) {
			return fieldErr("scopes", ErrInvalid, fmt.Sprintf("%q is not a scope; the scopes are %s.", s, strings.Join(ClientScopes, ", ")))
		}
	}
	if len(scopes) == 0 {
		return fieldErr("scopes", ErrInvalid, "must name at least one scope.")
	}
	return c.changeClient(ctx, id, `UPDATE api_clients SET scopes = ?, token_generation = token_generation + 1 WHERE id = ?`,
		strings.Join(scopes, " "), id)
}

// DeleteClient removes a client; its tokens end with it.
func (c *OrgStore) DeleteClient(ctx context.Context, id string) error {
	return c.changeClient(ctx, id, `DELETE FROM api_clients WHERE id = ?`, id)
}

func (c *OrgStore) changeClient(ctx context.Context, id, statement string, args ...any) error {
	defer c.tokenStates.Remove(id)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, statement, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("client %s: %w", id, ErrNotFound)
		}
		return c.changed(ctx, tx, domainClients, id)
	})
}

// TokenState is what decides whether a client's token is still good: the
// client exists, is enabled, and is at the token's generation.
type TokenState struct {
	Exists, Disabled bool
	Generation       int
}

// TokenStateTTL is how long a client's token state is kept: how late a
// change is seen by another process on a SQLite catalog (on PostgreSQL a
// change notification drops the state at once), or by this one when a
// request read the state while the change was committed.
const TokenStateTTL = 30 * time.Second

// newTokenStates is the cache of clients' token states.
func newTokenStates() *expirable.LRU[string, TokenState] {
	return expirable.NewLRU[string, TokenState](100_000, nil, TokenStateTTL)
}

// ClientTokenState reads a client's token state, kept for TokenStateTTL:
// every authenticated request asks. A change made through this store drops
// the kept state at once.
func (c *OrgStore) ClientTokenState(ctx context.Context, id string) (TokenState, error) {
	if st, ok := c.tokenStates.Get(id); ok {
		return st, nil
	}
	var st TokenState
	err := c.db.QueryRowContext(ctx, `SELECT disabled, token_generation FROM api_clients WHERE id = ?`, id).Scan(&st.Disabled, &st.Generation)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return st, err
	default:
		st.Exists = true
	}
	c.tokenStates.Add(id, st)
	return st, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanClient(s scanner) (APIClient, error) {
	var cl APIClient
	var scopes string
	err := s.Scan(&cl.ID, &cl.OrgID, &cl.Name, &cl.SecretHash, &cl.Disabled, &cl.CreatedOn, &cl.TokenGeneration, &scopes)
	cl.CreatedOn, cl.Scopes = cl.CreatedOn.UTC(), strings.Fields(scopes)
	return cl, err
}
