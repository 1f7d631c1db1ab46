package catalog

import "context"

// eachRow runs exec for each of n rows of a statement SQLite runs row by
// row, with a context that cannot be canceled. The driver runs a
// statement whose context can be canceled on a goroutine of its own, to
// interrupt it if need be: a goroutine started and two woken each row,
// which costs more than the row's step, and most on a machine of many
// idle cores. A row's step is too short to need interrupting, so ctx is
// checked between rows instead; the transaction still ends with ctx.
func eachRow(ctx context.Context, n int, exec func(rowCtx context.Context, i int) error) error {
	rowCtx := context.WithoutCancel(ctx)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := exec(rowCtx, i); err != nil {
			return err
		}
	}
	return nil
}
