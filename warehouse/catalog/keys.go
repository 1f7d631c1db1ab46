package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// KeyStore keeps the API's token signing keys: one set for every process
// on this catalog.
type KeyStore struct{ handle }

// SigningKey is a stored signing key: its id (the key's thumbprint) and its
// private key as PEM.
type SigningKey struct {
	ID         string    `json:"kid"`
	PrivateKey string    `json:"-"`
	CreatedOn  time.Time `json:"createdOn"`
}

// SigningKeys lists the keys, oldest first: the last one signs.
func (c *KeyStore) SigningKeys(ctx context.Context) ([]SigningKey, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT id, private_key, created_on FROM signing_keys ORDER BY created_on, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SigningKey
	for rows.Next() {
		var k SigningKey
		if err := rows.Scan(&k.ID, &k.PrivateKey, &k.CreatedOn); err != nil {
			return nil, err
		}
		k.CreatedOn = k.CreatedOn.UTC()
		out = append(out, k)
	}
	return out, rows.Err()
}

// AddSigningKeys stores keys (each created now unless it says when); with
// onlyIfNone, only when the catalog has no key yet, so that processes
// starting at once on a new catalog agree on one first key. It tells
// whether the keys were stored.
func (c *KeyStore) AddSigningKeys(ctx context.Context, keys []SigningKey, onlyIfNone bool) (bool, error) {
	added := false
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		added = false
		if onlyIfNone {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM signing_keys`).Scan(&n); err != nil || n > 0 {
				return err
			}
		}
		for _, k := range keys {
			if k.CreatedOn.IsZero() {
				k.CreatedOn = now()
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (id, private_key, created_on) VALUES (?, ?, ?)`,
				k.ID, k.PrivateKey, stamp(k.CreatedOn)); err != nil {
				if isUniqueViolation(err) {
					return fmt.Errorf("signing key %s: %w", k.ID, ErrExists)
				}
				return err
			}
		}
		added = true
		return c.changed(ctx, tx, domainKeys)
	})
	return added && err == nil, err
}

// ErrLastKey: the newest signing key cannot be retired (rotate first).
var ErrLastKey = fmt.Errorf("the newest signing key signs every token: rotate to a new key before retiring it: %w", ErrInvalid)

// RetireSigningKey deletes a key that no longer signs: tokens it signed
// stop verifying everywhere.
func (c *KeyStore) RetireSigningKey(ctx context.Context, id string) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		var newest string
		err := tx.QueryRowContext(ctx, `SELECT id FROM signing_keys ORDER BY created_on DESC, id DESC LIMIT 1`).Scan(&newest)
		switch {
		case err == sql.ErrNoRows:
			return fmt.Errorf("signing key %s: %w", id, ErrNotFound)
		case err != nil:
			return err
		case newest == id:
			return ErrLastKey
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM signing_keys WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("signing key %s: %w", id, ErrNotFound)
		}
		return c.changed(ctx, tx, domainKeys)
	})
}
