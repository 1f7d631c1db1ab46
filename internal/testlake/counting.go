package testlake

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/earshot/earshot/warehouse/lakedb"
)

// Counting is a lake engine that counts the statements run on it, for a
// test to tell what was read from the lake and what was not.
type Counting struct {
	*lakedb.DB
	statements atomic.Int64
}

// Statements is how many statements ran.
func (c *Counting) Statements() int64 { return c.statements.Load() }

func (c *Counting) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.statements.Add(1)
	return c.DB.QueryContext(ctx, query, args...)
}

func (c *Counting) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	c.statements.Add(1)
	return c.DB.QueryRowContext(ctx, query, args...)
}

func (c *Counting) QueryArrow(ctx context.Context, fn func(arrow.RecordBatch) error, query string, args ...any) error {
	c.statements.Add(1)
	return c.DB.QueryArrow(ctx, fn, query, args...)
}
