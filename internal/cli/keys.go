package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/earshot/earshot/api/admin"
	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/spf13/cobra"
)

// openKeyring loads the token signing keys from the catalog, which every
// process on it shares. A catalog without keys gets the key files of an
// earlier release (DATA/keys, so that live tokens stay good), else a new
// key — only if no other process stored one first. On PostgreSQL the ring
// reloads when another process rotates or retires a key.
func openKeyring(ctx context.Context, cfg *Config, cat *catalog.Catalog, log *slog.Logger) (*oauth.Keyring, error) {
	stored, err := cat.Keys.SigningKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	if len(stored) == 0 {
		first, err := firstSigningKeys(cfg)
		if err != nil {
			return nil, err
		}
		if _, err := cat.Keys.AddSigningKeys(ctx, first, true); err != nil {
			return nil, fmt.Errorf("signing keys: %w", err)
		}
	}
	ring, err := oauth.NewKeyring(ctx, func(ctx context.Context) ([]oauth.Key, error) {
		stored, err := cat.Keys.SigningKeys(ctx)
		if err != nil {
			return nil, err
		}
		keys := make([]oauth.Key, len(stored))
		for i, s := range stored {
			if keys[i], err = oauth.ParseKey(s.PrivateKey); err != nil {
				return nil, fmt.Errorf("signing key %s: %w", s.ID, err)
			}
		}
		return keys, nil
	})
	if err != nil {
		return nil, err
	}
	cat.OnChange(catalog.DomainKeys, func([]string) {
		if err := ring.Reload(context.Background()); err != nil {
			log.Error("signing keys changed, and could not be read again", "err", err)
		}
	})
	return ring, nil
}

// firstSigningKeys are the key files of an earlier release in the data
// directory, or else one new key.
func firstSigningKeys(cfg *Config) ([]catalog.SigningKey, error) {
	files, err := oauth.ReadKeyFiles(cfg.keysDir())
	if err != nil {
		return nil, err
	}
	var keys []catalog.SigningKey
	for _, f := range files {
		keys = append(keys, catalog.SigningKey{ID: f.ID, PrivateKey: f.PEM, CreatedOn: f.CreatedOn})
	}
	if len(keys) > 0 {
		return keys, nil
	}
	k, text, err := oauth.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("create signing key: %w", err)
	}
	return []catalog.SigningKey{{ID: k.ID, PrivateKey: text}}, nil
}

func keysCommand(cfg *Config) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "The API's token signing keys, shared by every process on the catalog (list, rotate, retire)"}
	cmd.AddCommand(&cobra.Command{
		Use: "list", Short: "List the signing keys, oldest first; the last one signs", Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) { return a.SigningKeys(ctx) }),
	}, &cobra.Command{
		Use:   "rotate",
		Short: "Add a new signing key: it signs from now on, the older ones still verify their tokens",
		Long: `Adds a new signing key to the catalog. Every process on the catalog signs with it
within a second (on PostgreSQL through a notification; on SQLite the serving
process reloads at once when this goes through its socket) and publishes it in
/.well-known/jwks.json beside the older keys, whose tokens stay good. Retire an
old key once the tokens it signed have expired (--token-ttl after the rotation).`,
		Args: cobra.NoArgs,
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, _ []string) (any, error) { return a.RotateSigningKey(ctx) }),
	}, &cobra.Command{
		Use: "retire KID", Short: "Delete a signing key that no longer signs; the tokens it signed are refused from then on", Args: cobra.ExactArgs(1),
		RunE: withAdmin(cfg, func(ctx context.Context, a admin.Operations, args []string) (any, error) {
			if err := a.RetireSigningKey(ctx, args[0]); err != nil {
				return nil, err
			}
			return map[string]any{"kid": args[0], "retired": true}, nil
		}),
	})
	return cmd
}
