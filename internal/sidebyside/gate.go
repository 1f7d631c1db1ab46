// Package sidebyside holds the gate tests use to show that calls run side
// by side without timing them: a test double whose calls wait at a gate
// that opens only once several are in flight at once. Work done one call
// at a time never opens it, and the test's deadline fails it.
package sidebyside

import (
	"context"
	"sync/atomic"
)

// Gate lets its first free calls through at once, then holds every other
// until together more have arrived.
type Gate struct {
	free, together int64
	arrived        atomic.Int64
	open           chan struct{}
}

// NewGate is a gate that lets free calls through, then opens once
// together more wait at it.
func NewGate(free, together int) *Gate {
	g := &Gate{free: int64(free), together: int64(together), open: make(chan struct{})}
	if together <= 0 {
		close(g.open)
	}
	return g
}

// Wait returns once the gate lets the call through, or with ctx's error
// when ctx ends first.
func (g *Gate) Wait(ctx context.Context) error {
	n := g.arrived.Add(1)
	if n == g.free+g.together {
		close(g.open)
	}
	if n <= g.free {
		return nil
	}
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
