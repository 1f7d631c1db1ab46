// Package cores bounds how many cores a job's CPU-bound work keeps busy.
// The job puts a Pool of N cores in its context; each unit of CPU-bound
// work below it (parsing a chat, classifying a part, encoding a Parquet
// file) takes a core for its duration and gives it back. Waiting — for
// the disk, the catalog, another stage — holds none, so stages overlap
// without the job using more than its N cores. Work whose context carries
// no pool is not bounded.
package cores

import (
	"context"
	"runtime"
)

// Pool is a number of cores to share.
type Pool struct {
	slots chan struct{}
}

// New is a pool of n cores (at least one).
func New(n int) *Pool {
	return &Pool{slots: make(chan struct{}, max(n, 1))}
}

type poolKey struct{}

// With is ctx whose CPU-bound work shares the pool's cores.
func With(ctx context.Context, p *Pool) context.Context {
	return context.WithValue(ctx, poolKey{}, p)
}

// Size is how many cores the context's work may keep busy at once: its
// pool's, or every core the process may use without one.
func Size(ctx context.Context) int {
	if p, _ := ctx.Value(poolKey{}).(*Pool); p != nil {
		return cap(p.slots)
	}
	return runtime.GOMAXPROCS(0)
}

// Take waits for one of the context's cores; Release on what it returns
// gives it back. With no pool in the context it returns nil at once, whose
// Release does nothing. (A pool and its method, not a func: a returned
// closure would cost an allocation for every unit of work.)
func Take(ctx context.Context) *Pool {
	p, _ := ctx.Value(poolKey{}).(*Pool)
	if p != nil {
		p.slots <- struct{}{}
	}
	return p
}

// Release gives back a core Take took from p.
func (p *Pool) Release() {
	if p != nil {
		<-p.slots
	}
}
