package results

import "context"

// A batch's catalog check waits until DuckDB has executed the lake query of
// the batch's fetch. DuckDB executes a query on all of its threads and then
// hands the result over, batch by batch, on the caller's one: a check
// beside the execution takes a core from the query, while a check beside
// the hand-over runs on a core that is idle then. The fetch tells when
// through its context (withExecuted); a fetch that runs no lake query
// tells by returning.

type executedKey struct{}

// withExecuted is ctx with done, which the first lake query run with it
// calls once DuckDB has executed it.
func withExecuted(ctx context.Context, done func()) context.Context {
	return context.WithValue(ctx, executedKey{}, done)
}

// executedHook is what a lake query run with ctx calls once DuckDB has
// executed it (a no-op when ctx has none).
func executedHook(ctx context.Context) func() {
	if done, ok := ctx.Value(executedKey{}).(func()); ok {
		return done
	}
	return func() {}
}
