package catalog

import (
	"context"
	"database/sql"
	"fmt"
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

// ErrNotEmpty: a copy is only made into a catalog that has no
// organization yet.
var ErrNotEmpty = fmt.Errorf("the catalog already has organizations: %w", ErrExists)

// CopyFrom copies every table of src into this catalog, which must be
// empty, in one transaction, and checks that each table has as many rows
// as the source said before it commits. It returns the rows copied by
// table. A failed copy leaves this catalog as it was.
func (c *Catalog) CopyFrom(ctx context.Context, src CopySource) (map[string]int64, error) {
	copied := map[string]int64{}
	defer c.invalidateAll()
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		clear(copied)
		var orgs int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM organizations`).Scan(&orgs); err != nil {
			return err
		}
		if orgs > 0 {
			return ErrNotEmpty
		}
		for _, table := range src.Tables() {
			n, err := copyTable(ctx, tx, src, table)
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
	return copied, err
}

// copyTable inserts a source table's rows through one prepared statement,
// made from the column names of its first row.
func copyTable(ctx context.Context, tx *sql.Tx, src CopySource, table string) (int64, error) {
	var stmt *sql.Stmt
	defer func() {
		if stmt != nil {
			stmt.Close()
		}
	}()
	return src.Rows(ctx, table, func(columns []string, row []any) error {
		if stmt == nil {
			var err error
			if stmt, err = prepareInsert(ctx, tx, table, columns); err != nil {
				return err
			}
		}
		for i, v := range row {
			if t, ok := v.(time.Time); ok {
				row[i] = stamp(t)
			}
		}
		_, err := stmt.ExecContext(ctx, row...)
		return err
	})
}

// invalidateAll drops everything kept in memory.
func (c *Catalog) invalidateAll() {
	c.People.trees.invalidateAll()
	c.Classifiers.classifiers.invalidateAll()
	c.Manifest.manifest.invalidateAll()
	c.Reviews.reviews.invalidateAll()
}
