package catalog

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// Each driver's and the kernel's words for a full disk or an unreachable
// catalog are outages, wrapped or not; anything else is not.
func TestOutageOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want Outage
	}{
		{"nil", nil, NoOutage},
		{"a bug", errors.New("index out of range"), NoOutage},
		{"not found", ErrNotFound, NoOutage},
		{"a write to a full disk", &fs.PathError{Op: "write", Path: "/data/bucket/.tmp/put-1", Err: syscall.ENOSPC}, StorageFull},
		{"a quota", fmt.Errorf("stage: %w", &fs.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}), StorageFull},
		{"SQLite full", fmt.Errorf("commit: %w", sqlite3.Error{Code: sqlite3.ErrFull}), StorageFull},
		{"PostgreSQL disk_full", &pgconn.PgError{Code: "53100"}, StorageFull},
		{"SQLite busy", sqlite3.Error{Code: sqlite3.ErrBusy}, CatalogUnreachable},
		{"SQLite constraint", sqlite3.Error{Code: sqlite3.ErrConstraint}, NoOutage},
		{"PostgreSQL shutting down", fmt.Errorf("claim: %w", &pgconn.PgError{Code: "57P01"}), CatalogUnreachable},
		{"PostgreSQL starting", &pgconn.PgError{Code: "57P03"}, CatalogUnreachable},
		{"PostgreSQL connection failure", &pgconn.PgError{Code: "08006"}, CatalogUnreachable},
		{"PostgreSQL unique violation", &pgconn.PgError{Code: "23505"}, NoOutage},
		{"a refused connection", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), CatalogUnreachable},
		{"a bad connection", driver.ErrBadConn, CatalogUnreachable},
	} {
		if got := OutageOf(tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
