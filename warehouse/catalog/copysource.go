package catalog

import (
	"context"
	"database/sql"
	"fmt"
)

// TableSource reads a catalog as the source of a copy into another
// (earshot admin catalog copy): every table but the migrations' own, in
// one read transaction, so that the copy is of one moment.
type TableSource struct {
	tx     *sql.Tx
	tables []string
}

// CopySource starts reading this catalog for a copy; Close ends it.
func (c *Catalog) CopySource(ctx context.Context) (*TableSource, error) {
	opts := &sql.TxOptions{}
	list := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
		AND name <> 'schema_migrations' ORDER BY name`
	if c.postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
		list = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
			AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name`
	}
	tx, err := c.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	tables, err := queryStrings(ctx, tx, list)
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("list the catalog's tables: %w", err)
	}
	return &TableSource{tx: tx, tables: tables}, nil
}

// Close ends the read.
func (s *TableSource) Close() error { return s.tx.Rollback() }

// Tables are the tables to copy, in name order (the catalog has no
// foreign keys: any order will do).
func (s *TableSource) Tables() []string { return s.tables }

// Rows hands every row of a table to fn, as the driver reads it, and
// returns how many rows the table has (counted apart from the rows read).
func (s *TableSource) Rows(ctx context.Context, table string, fn func(columns []string, row []any) error) (int64, error) {
	var total int64
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&total); err != nil {
		return 0, err
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return 0, err
	}
	columns, err := rows.Columns()
	if err != nil {
		rows.Close()
		return 0, err
	}
	return total, EachRow(rows, columns, fn)
}

// EachRow hands every row of rows to fn under the column names, as the
// driver reads it (one slice, reused from row to row), and closes rows: the
// reading side of a CopySource.
func EachRow(rows *sql.Rows, columns []string, fn func(columns []string, row []any) error) error {
	defer rows.Close()
	row := make([]any, len(columns))
	ptrs := make([]any, len(columns))
	for i := range row {
		ptrs[i] = &row[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(columns, row); err != nil {
			return err
		}
	}
	return rows.Err()
}
