// Package catalog is Earshot's small, transactional state: organizations, API
// clients and (in later migrations) everything else that is mutable. It is a
// DuckDB database file owned by one process (DuckDB locks the file), so other
// processes reach it through that process (see api/admin).
package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Catalog is an open catalog database.
type Catalog struct {
	db *sql.DB
	// Kept in memory between changes (see orgCache).
	trees       orgCache[*Tree]
	classifiers orgCache[[]Classifier]
	manifest    orgCache[[]LakeFile]
	reviews     orgCache[*reviewIndex]
	lakeRoot    string // local directory of the lake's files (see SetLakeRoot)
}

// Open opens (creating if needed) the catalog at path and applies every
// pending migration.
func Open(ctx context.Context, path string) (*Catalog, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	// Lake files never change once written (a new version is a new file):
	// DuckDB may keep their Parquet footers instead of reading and parsing
	// them on every query (~3 ms a file of a day at 10 million
	// conversations). GLOBAL: every pooled connection.
	if _, err := db.ExecContext(ctx, `SET GLOBAL parquet_metadata_cache = true`); err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	c := &Catalog{db: db}
	if err := c.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := c.ensureStandardRoles(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("standard roles: %w", err)
	}
	return c, nil
}

// DB is the catalog's database, for tests and read-only tools.
func (c *Catalog) DB() *sql.DB { return c.db }

// Close releases the database file.
func (c *Catalog) Close() error { return c.db.Close() }

// Ping tells whether the catalog answers a query.
func (c *Catalog) Ping(ctx context.Context) error {
	var one int
	return c.db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// maxAttempts bounds the retries of a transaction that lost a write-write
// conflict; DuckDB's optimistic concurrency makes the loser fail at once.
const maxAttempts = 8

// InTx runs fn in a transaction and commits it. A transaction that fails
// with a DuckDB conflict is retried from the start (fn must be repeatable);
// any other error rolls back and is returned as is.
func (c *Catalog) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			backoff := time.Duration(1<<attempt) * time.Millisecond
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff + rand.N(backoff)):
			}
		}
		err = c.runTx(ctx, fn)
		if !isConflict(err) {
			return err
		}
	}
	return fmt.Errorf("catalog: gave up after %d conflicting attempts: %w", maxAttempts, err)
}

func (c *Catalog) runTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func isConflict(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeTransaction
}

// isUniqueViolation tells whether err is a primary-key or unique violation.
func isUniqueViolation(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeConstraint
}
