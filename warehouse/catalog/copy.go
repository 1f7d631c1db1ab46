package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// CopySource is a catalog kept by another engine (the DuckDB catalog of
// earlier releases), read table by table to be copied into this one.
type CopySource interface {
	// Tables are the tables to copy, in the order to copy them.
	Tables() []string
	// Rows hands every row of a table to fn with the table's column names
	// and returns how many rows the table has.
	Rows(ctx context.Context, table string, fn func(columns []string, row []any) error) (int64, error)
}

// ErrNotEmpty: a copy is only made into a catalog whose tables are empty.
var ErrNotEmpty = fmt.Errorf("the catalog already has data: %w", ErrExists)

// Copy copies every table of the catalog at from into the empty catalog at
// to (addresses as Open takes them; either engine, either way) and returns
// the rows copied by table. A SQLite source must exist: opening an absent
// file would make an empty catalog to copy.
func Copy(ctx context.Context, from, to string) (map[string]int64, error) {
	if !IsPostgres(from) {
		path, err := FilePath(from)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("the catalog to copy: %w", err)
		}
	}
	src, err := Open(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("the catalog to copy: %w", err)
	}
	defer src.Close()
	dst, err := Open(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("the catalog to copy into: %w", err)
	}
	defer dst.Close()
	read, err := src.CopySource(ctx)
	if err != nil {
		return nil, fmt.Errorf("the catalog to copy: %w", err)
	}
	defer read.Close()
	return dst.CopyFrom(ctx, read)
}

// CopyFrom copies every table of src into this catalog, whose tables must
// be empty, in one transaction, and checks that each table has as many rows
// as the source said before it commits. It returns the rows copied by
// table. A failed copy leaves this catalog as it was.
func (c *Catalog) CopyFrom(ctx context.Context, src CopySource) (map[string]int64, error) {
	copied := map[string]int64{}
	defer c.invalidateAll()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		clear(copied)
		for _, table := range src.Tables() {
			var have int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&have); err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
			if have > 0 {
				return fmt.Errorf("%w (%s has %d rows)", ErrNotEmpty, table, have)
			}
		}
		for _, table := range src.Tables() {
			n, err := c.copyTable(ctx, tx, src, table)
			if err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
			var have int64
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&have); err != nil {
				return err
			}
			if have != n {
				return fmt.Errorf("copy %s: %d rows in the source, %d copied", table, n, have)
			}
			copied[table] = n
		}
		return c.changed(ctx, tx, domainAll)
	})
	if err == nil && c.postgres {
		// PostgreSQL plans queries from statistics that only ANALYZE (or,
		// later, autovacuum) gathers: without them, right after a copy,
		// some pages were planned several times slower.
		if _, err := c.exec(ctx, `ANALYZE`); err != nil {
			return copied, fmt.Errorf("the copy is made; gathering its statistics (ANALYZE) failed: %w", err)
		}
	}
	return copied, err
}

// copyBatch is how many rows the copy inserts at once.
const copyBatch = 1000

// copyTable inserts a source table's rows, copyBatch at a time, under the
// column names of its first row.
func (c *Catalog) copyTable(ctx context.Context, tx *sql.Tx, src CopySource, table string) (int64, error) {
	booleans, err := c.booleanColumns(ctx, tx, table)
	if err != nil {
		return 0, err
	}
	var names []string
	var batch [][]any
	flush := func() error {
		err := c.bulkInsert(ctx, tx, table, names, batch)
		batch = batch[:0]
		return err
	}
	n, err := src.Rows(ctx, table, func(columns []string, row []any) error {
		names = columns
		values := make([]any, len(row)) // the source reuses row
		for i, v := range row {
			switch x := v.(type) {
			case time.Time:
				values[i] = stamp(x)
			case int64:
				// A flag SQLite keeps as an integer is a boolean on
				// PostgreSQL.
				if booleans[columns[i]] {
					values[i] = x != 0
				} else {
					values[i] = x
				}
			default:
				values[i] = v
			}
		}
		if batch = append(batch, values); len(batch) == copyBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, flush()
}

// invalidateAll drops everything kept in memory.
func (c *Catalog) invalidateAll() {
	c.People.trees.invalidateAll()
	c.Classifiers.classifiers.invalidateAll()
	c.Manifest.manifest.invalidateAll()
	c.Reviews.reviews.invalidateAll()
	c.Evaluations.forms.invalidateAll()
}

// booleanColumns are the table's boolean columns on PostgreSQL (SQLite
// takes booleans and integers alike).
func (c *Catalog) booleanColumns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	out := map[string]bool{}
	if !c.postgres {
		return out, nil
	}
	names, err := queryStrings(ctx, tx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? AND data_type = 'boolean'`, table)
	for _, n := range names {
		out[n] = true
	}
	return out, err
}
