package catalog

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// The log is copied into the database file while the catalog is open, by
// its own goroutine: commits leave it (a few rows are far from the size at
// which a commit would copy it itself), and the file read alone, without
// the log, comes to hold them.
func TestCheckpointsOutsideCommits(t *testing.T) {
	if testEngine == "postgres" {
		t.Skip("PostgreSQL has no write-ahead log of the catalog's to copy")
	}
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "catalog.db")
	c := openAt(t, path)
	org, err := c.Orgs.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var autocheckpoint int
	if err := c.db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&autocheckpoint); err != nil || autocheckpoint != 0 {
		t.Fatalf("wal_autocheckpoint %d (%v), want 0: commits would copy the log", autocheckpoint, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := inFileAlone(ctx, path, `SELECT count(*) FROM organizations WHERE id = ?`, org.ID)
		if err == nil && n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the organization is not in the database file after 30 s (%d, %v): the log was not checkpointed", n, err)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, bounded by the deadline
	}
}

// inFileAlone counts with query in the database file as it is on disk,
// without its log (immutable: SQLite reads the file and nothing else).
func inFileAlone(ctx context.Context, path, query string, args ...any) (int, error) {
	file, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return 0, err
	}
	defer file.Close()
	var n int
	err = file.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}
