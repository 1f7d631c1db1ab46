package catalog

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A write of the process is copied into the database file by its
// checkpointer, not left in the log until a commit takes the log past
// SQLite's threshold: the database file alone, copied without its log,
// comes to hold it.
func TestCheckpointerCopiesWritesIntoTheDatabaseFile(t *testing.T) {
	if testEngine == "postgres" {
		t.Skip("SQLite's write-ahead log")
	}
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	c := openAt(t, path)
	var pages int
	if err := c.db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != autoCheckpointPages {
		t.Fatalf("wal_autocheckpoint %d (%v), want %d: commits would checkpoint themselves", pages, err, autoCheckpointPages)
	}
	org, err := c.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !fileHoldsOrganization(t, path, org.ID) {
		if time.Now().After(deadline) {
			t.Fatal("the organization is still only in the log a minute after it was written")
		}
		time.Sleep(5 * time.Millisecond) // polls the file for the condition
	}
}

// fileHoldsOrganization tells whether the database file at path, copied
// without its log, holds the organization.
func fileHoldsOrganization(t *testing.T, path, orgID string) bool {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copied, body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", copied)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM organizations WHERE id = ?`, orgID).Scan(&n); err != nil {
		return false // the copy caught the file mid-write: try again
	}
	return n == 1
}
