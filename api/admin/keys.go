package admin

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/catalog"
)

// KeyStore keeps the token signing keys (catalog.KeyStore).
type KeyStore interface {
	SigningKeys(ctx context.Context) ([]catalog.SigningKey, error)
	AddSigningKeys(ctx context.Context, keys []catalog.SigningKey, onlyIfNone bool) (bool, error)
	RetireSigningKey(ctx context.Context, id string) error
}

// KeyReloader reads the signing keys again (oauth.Keyring): the serving
// process's, after a change made through its socket.
type KeyReloader interface {
	Reload(ctx context.Context) error
}

// SetKeyring lets the service reload the serving process's keys after it
// rotates or retires one.
func (s *Service) SetKeyring(k KeyReloader) { s.keyring = k }

// SigningKeys lists the signing keys, oldest first: the last one signs.
// The private keys never leave the catalog.
func (s *Service) SigningKeys(ctx context.Context) ([]catalog.SigningKey, error) {
	keys, err := s.stores.Keys.SigningKeys(ctx)
	if keys == nil {
		keys = []catalog.SigningKey{}
	}
	for i := range keys {
		keys[i].PrivateKey = ""
	}
	return keys, err
}

// RotateSigningKey adds a new key, which signs from now on; the older keys
// still verify the tokens they signed until they are retired.
func (s *Service) RotateSigningKey(ctx context.Context) (catalog.SigningKey, error) {
	key, text, err := oauth.GenerateKey()
	if err != nil {
		return catalog.SigningKey{}, err
	}
	if _, err := s.stores.Keys.AddSigningKeys(ctx, []catalog.SigningKey{{ID: key.ID, PrivateKey: text}}, false); err != nil {
		return catalog.SigningKey{}, err
	}
	keys, err := s.SigningKeys(ctx)
	if err != nil || len(keys) == 0 {
		return catalog.SigningKey{}, fmt.Errorf("signing keys after the rotation: %w", err)
	}
	return keys[len(keys)-1], s.reloadKeys(ctx)
}

// RetireSigningKey deletes a key that no longer signs; tokens it signed
// are refused from then on.
func (s *Service) RetireSigningKey(ctx context.Context, id string) error {
	if err := s.stores.Keys.RetireSigningKey(ctx, id); err != nil {
		return err
	}
	return s.reloadKeys(ctx)
}

func (s *Service) reloadKeys(ctx context.Context) error {
	if s.keyring == nil {
		return nil
	}
	return s.keyring.Reload(ctx)
}

func (r *Remote) SigningKeys(ctx context.Context) ([]catalog.SigningKey, error) {
	return remote[[]catalog.SigningKey](ctx, r, "SigningKeys")
}

func (r *Remote) RotateSigningKey(ctx context.Context) (catalog.SigningKey, error) {
	return remote[catalog.SigningKey](ctx, r, "RotateSigningKey")
}

func (r *Remote) RetireSigningKey(ctx context.Context, id string) error {
	_, err := remote[struct{}](ctx, r, "RetireSigningKey", id)
	return err
}
