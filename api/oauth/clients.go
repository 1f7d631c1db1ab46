package oauth

import (
	"context"
	"errors"
	"fmt"

	"github.com/earshot/earshot/warehouse/catalog"
)

// ClientStore finds API clients by id.
type ClientStore interface {
	Client(ctx context.Context, id string) (catalog.APIClient, error)
}

// Authenticate checks client credentials. Unknown id, wrong secret and
// disabled client all give ErrInvalidClient, in about the same time.
func Authenticate(ctx context.Context, store ClientStore, id, secret string) (catalog.APIClient, error) {
	client, err := store.Client(ctx, id)
	if errors.Is(err, catalog.ErrNotFound) {
		SecretMatches(string(dummyHash()), secret)
		return catalog.APIClient{}, ErrInvalidClient
	}
	if err != nil {
		return catalog.APIClient{}, fmt.Errorf("look up client: %w", err)
	}
	if !SecretMatches(client.SecretHash, secret) || client.Disabled {
		return catalog.APIClient{}, ErrInvalidClient
	}
	return client, nil
}
