package catalog

import (
	"database/sql/driver"
	"errors"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// Outage is why an error means the service cannot work now, rather than
// that it has a bug: a client should retry later, and the operator act.
type Outage int

const (
	// NoOutage: the error is no outage.
	NoOutage Outage = iota
	// StorageFull: the disk (or quota) the data or the catalog is written
	// to is full.
	StorageFull
	// CatalogUnreachable: the catalog's database cannot be reached, is
	// restarting or shutting down, or is busy past its timeout.
	CatalogUnreachable
)

// OutageOf tells whether err, anywhere in its chain, is an outage: a full
// disk (ENOSPC, EDQUOT, SQLite's SQLITE_FULL, PostgreSQL's disk_full), or
// a catalog out of reach (a refused or cut connection, PostgreSQL's
// connection exceptions and shutdowns, SQLite busy or locked).
func OutageOf(err error) Outage {
	if err == nil {
		return NoOutage
	}
	var se sqlite3.Error
	isSQLite := errors.As(err, &se)
	code := pgCode(err)
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), isSQLite && se.Code == sqlite3.ErrFull, code == "53100":
		return StorageFull
	case isSQLite && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked),
		strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03",
		errors.Is(err, driver.ErrBadConn), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), isConnectError(err):
		return CatalogUnreachable
	}
	return NoOutage
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}
