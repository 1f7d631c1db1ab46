package catalog

import (
	"context"
	"database/sql"
)

// Snapshot runs a read-only query of an organization's catalog rows (the
// export job's, sql/export: its one parameter is $org) and hands each row
// to fn with the query's column names. Values are as the driver reads
// them: strings, int64, float64, time.Time (columns declared TIMESTAMP),
// or nil. It returns the columns (also when there are no rows) and how
// many rows it read.
func (c *Catalog) Snapshot(ctx context.Context, query, orgID string, fn func(columns []string, values []any) error) ([]string, int64, error) {
	rows, err := c.db.QueryContext(ctx, query, sql.Named("org", orgID))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	values := make([]any, len(columns))
	ptrs := make([]any, len(columns))
	for i := range values {
		ptrs[i] = &values[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, n, err
		}
		if err := fn(columns, values); err != nil {
			return nil, n, err
		}
		n++
	}
	return columns, n, rows.Err()
}
