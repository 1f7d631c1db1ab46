package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/warehouse/catalog"
)

// TestSigningKeysMoveIntoTheCatalog: the key file of an earlier release
// becomes the catalog's key (its tokens stay good), and a second process on
// the catalog, with a data directory of its own, signs with the same key.
func TestSigningKeysMoveIntoTheCatalog(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	old := &Config{DataDir: t.TempDir()}
	key, text, _ := oauth.GenerateKey()
	os.MkdirAll(old.keysDir(), 0o700)
	if err := os.WriteFile(filepath.Join(old.keysDir(), "20250101T000000.000000000Z.pem"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	first, err := openKeyring(ctx, old, cat, log)
	if err != nil {
		t.Fatal(err)
	}
	second, err := openKeyring(ctx, &Config{DataDir: t.TempDir()}, cat, log)
	if err != nil {
		t.Fatal(err)
	}
	if first.Signing().ID != key.ID || second.Signing().ID != key.ID {
		t.Fatalf("signing keys %s and %s, want the file's %s", first.Signing().ID, second.Signing().ID, key.ID)
	}
	stored, _ := cat.Keys.SigningKeys(ctx)
	if len(stored) != 1 || stored[0].CreatedOn.Year() != 2025 {
		t.Fatalf("stored: %d keys", len(stored))
	}
	// A fresh catalog and data directory get one new key.
	fresh, _ := catalog.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	defer fresh.Close()
	ring, err := openKeyring(ctx, &Config{DataDir: t.TempDir()}, fresh, log)
	if err != nil || ring.Signing().ID == key.ID || len(ring.JWKS().Keys) != 1 {
		t.Fatalf("a fresh catalog's key: %v", err)
	}
}
