package lakedb

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Arrivals reads the first and last arrival of a conversations file's
// rows, for a manifest entry written before entries recorded them.
func (d *DB) Arrivals(ctx context.Context, path string) (first, last time.Time, err error) {
	files, err := d.Files(ctx, []string{path})
	if err != nil {
		return first, last, err
	}
	var lo, hi sql.NullTime
	err = d.db.QueryRowContext(ctx, `SELECT min(arrived_on), max(arrived_on) FROM read_parquet(`+files+`, hive_partitioning = false)`).Scan(&lo, &hi)
	if err != nil {
		return first, last, fmt.Errorf("arrivals of %s: %w", path, err)
	}
	if !lo.Valid || !hi.Valid {
		return first, last, fmt.Errorf("arrivals of %s: the file has no rows", path)
	}
	return lo.Time.UTC(), hi.Time.UTC(), nil
}
