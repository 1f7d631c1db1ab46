//go:build duckdb_arrow

package lakedb

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// QueryArrow runs a query through DuckDB's Arrow interface and hands each
// record batch to fn. A page's results are tens of thousands of rows:
// database/sql copies every value into a Go string and an interface,
// Arrow hands over whole columns, and fn keeps only what it needs (ids it
// already holds are looked up, not copied). The batch is valid only
// during fn.
func (d *DB) QueryArrow(ctx context.Context, fn func(arrow.RecordBatch) error, query string, args ...any) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(raw any) error {
		dc, ok := raw.(driver.Conn)
		if !ok {
			return fmt.Errorf("not a database/sql driver connection: %T", raw)
		}
		ar, err := duckdb.NewArrowFromConn(dc)
		if err != nil {
			return err
		}
		reader, err := ar.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer reader.Release()
		for reader.Next() {
			if err := fn(reader.RecordBatch()); err != nil {
				return err
			}
		}
		return reader.Err()
	})
}
